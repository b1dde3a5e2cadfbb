import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

struct NavigationProjectionTests {
    /// The Kanji seed: all → detail(日) → list(日本) → detail(本) → all. Detail and list push,
    /// all is the root on the first entry and pops to it afterwards.
    @Test func theKanjiSessionGivesTheStackTheUserSawAtEachPoint() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(in: directory, projections: [NavigationProjection()])
        defer { engine.close() }
        let id = SessionID("kanji-reader")
        let session = try engine.makeSession(id: id, machine: "kanji")
        let expected: [[String]] = [
            ["all"],
            ["all", "detail"],
            ["all", "detail", "list"],
            ["all", "detail", "list", "detail"],
            ["all"],
        ]
        var seen: [[String]] = []
        for move in ProjectionFixtures.kanjiMoves {
            try await session.enter(move.state, data: move.data)
            seen.append(try #require(try engine.navigationStacks.stack(of: id)).screens)
            #expect(seen.last == session.navigationStack.screens, "the projection agrees with the live session")
        }
        #expect(seen == expected)
        #expect(try engine.navigationStacks.stack(of: SessionID("nobody")) == nil)
    }

    /// Detail(日) → List(日本) → Detail(本) → back → back: the projection, inline and caught up
    /// from the log, holds the entries with their data as the live session does.
    @Test func entriesCarryTheirDataInlineAndWhenCaughtUpFromTheLog() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        do {
            let engine = try fixture.open(registering: [try KanjiNavigation.machine()]) {
                $0.durability = .noSync
                $0.projections = [NavigationProjection()]
            }
            defer { engine.close() }
            let session = try await engine.startSession(id: "user", machine: KanjiNavigation.name)
            var seen = [try #require(try engine.navigationStacks.stack(of: session.id)).entries]
            try await session.enter("detail", data: KanjiNavigation.day)
            seen.append(try #require(try engine.navigationStacks.stack(of: session.id)).entries)
            try await session.enter("list", data: KanjiNavigation.japan)
            seen.append(try #require(try engine.navigationStacks.stack(of: session.id)).entries)
            try await session.enter("detail", data: KanjiNavigation.book)
            seen.append(try #require(try engine.navigationStacks.stack(of: session.id)).entries)
            for _ in 0..<2 {
                try await session.send("back")
                seen.append(try #require(try engine.navigationStacks.stack(of: session.id)).entries)
                #expect(seen.last == session.navigationStack.entries)
            }
            #expect(seen == KanjiNavigation.stacks)
        }
        // A store without the projection: registered afterwards, it folds the whole log.
        let other = try EngineFixture()
        defer { other.remove() }
        let engine = try other.open(registering: [try KanjiNavigation.machine()])
        defer { engine.close() }
        try await KanjiNavigation.walk("user", in: engine)
        try engine.register(NavigationProjection(), mode: .catchUp)
        #expect(try engine.navigationStacks.stack(of: SessionID("user"))?.entries == KanjiNavigation.stacks[5])
        #expect(try engine.navigationStacks.depthStatistics().maximum == 2)
    }

    /// State data the projection's coder cannot read stops the projection at that record, with
    /// the reason, and loses nothing before it.
    @Test func undecodableStateDataStopsTheProjectionAtThatRecord() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [])
        defer { engine.close() }
        let id = SessionID("odd")
        _ = try engine.writableStore.write { transaction in
            try transaction.append(
                [
                    ProjectionFixtures.transition(event: "rewind.start", to: "a", navigation: [.setRoot("a")], at: 1),
                    TransitionDraft(
                        timestamp: Timestamp(microsecondsSince1970: 2), machine: "bulk", definition: "v1", event: "go",
                        source: ["a"], target: ["b"], navigation: [.push("b")], stateData: Array("{not json".utf8)),
                ], to: id)
        }
        #expect(throws: ProjectionError.self) { try engine.register(NavigationProjection(), mode: .catchUp) }
        let status = try #require(try engine.projectionStatus(named: NavigationProjection().name))
        #expect(status.checkpoint == 1)
        #expect(status.failure?.sequence == 2)
        #expect(status.failure?.session == id)
        #expect(status.failure?.reason.isEmpty == false)
        #expect(try engine.navigationStacks.stack(of: id)?.entries == [NavigationEntry(screen: "a")])
    }

    @Test func depthStatisticsCountEverySessionsStack() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(in: directory, projections: [NavigationProjection()])
        defer { engine.close() }
        // Kanji sessions stopped after 1…5 moves: depths 1, 2, 3, 4, 1.
        for moves in 1...5 {
            let session = try engine.makeSession(id: try SessionID("kanji-\(moves)"), machine: "kanji")
            for move in ProjectionFixtures.kanjiMoves.prefix(moves) {
                try await session.enter(move.state, data: move.data)
            }
        }
        // Onboarding: greeting is the root, login is pushed, home becomes the root.
        // Stopped at initial, greeting, login, home: depths 0, 1, 2, 1.
        for steps in 0...3 {
            try await ProjectionFixtures.onboard(engine, id: "user-\(steps)", steps: steps)
        }
        let stacks = engine.navigationStacks
        #expect(try stacks.stack(of: SessionID("user-2"))?.screens == ["greeting", "login"])
        #expect(try stacks.stack(of: SessionID("user-3"))?.screens == ["home"])

        let kanji = try stacks.depthStatistics(machine: "kanji")
        #expect(kanji.histogram == [1: 2, 2: 1, 3: 1, 4: 1])
        #expect(kanji.sessions == 5 && kanji.maximum == 4 && kanji.mean == 11.0 / 5)
        let onboarding = try stacks.depthStatistics(machine: "onboarding")
        #expect(onboarding.histogram == [0: 1, 1: 2, 2: 1])
        #expect(onboarding.maximum == 2 && onboarding.mean == 1)
        let all = try stacks.depthStatistics()
        #expect(all.sessions == 9 && all.maximum == 4 && all.histogram[1] == 4)
        #expect(StackDepthStatistics().mean == 0 && StackDepthStatistics().maximum == 0)
    }

    @Test func theBinaryEncodingRoundTrips() throws {
        let projection = NavigationProjection()
        let navigation = NavigationProjection.SessionNavigation(
            machine: "kanji",
            stack: ScreenStack(entries: [
                NavigationEntry(screen: "all"), NavigationEntry(screen: "detail", data: ["character": "日", "n": 1.5]),
                NavigationEntry(screen: "日本", data: "word"),
            ]))
        var bytes: [UInt8] = []
        try projection.encode(navigation, into: &bytes)
        #expect(try bytes.withUnsafeBytes { try projection.decode($0) } == navigation)
        #expect(throws: (any Error).self) { try bytes.dropLast().withUnsafeBytes { try projection.decode($0) } }
    }
}
