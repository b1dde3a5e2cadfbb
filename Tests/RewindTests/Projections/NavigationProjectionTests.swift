import Foundation
import Testing
@testable import Rewind
import RewindTestSupport

struct NavigationProjectionTests {
    /// The Kanji seed: all → detail(日) → list(日本) → detail(本) → all. Detail and list push,
    /// all is the root on the first entry and pops to it afterwards.
    @Test func theKanjiSessionGivesTheStackTheUserSawAtEachPoint() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(in: directory, projections: [NavigationProjection()])
        defer { engine.close() }
        let id = try SessionID("kanji-reader")
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
        #expect(try engine.navigationStacks.stack(of: try SessionID("nobody")) == nil)
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
        #expect(try stacks.stack(of: try SessionID("user-2"))?.screens == ["greeting", "login"])
        #expect(try stacks.stack(of: try SessionID("user-3"))?.screens == ["home"])

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
            machine: "kanji", stack: NavigationStack(screens: ["all", "detail", "日本"]))
        var bytes: [UInt8] = []
        projection.encode(navigation, into: &bytes)
        #expect(try bytes.withUnsafeBytes { try projection.decode($0) } == navigation)
        #expect(throws: (any Error).self) { try bytes.dropLast().withUnsafeBytes { try projection.decode($0) } }
    }
}
