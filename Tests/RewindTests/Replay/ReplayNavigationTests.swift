import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Replay, diff, fork and session archives show the navigation stack's entries with their data
/// (issue 18 §2), exactly as the live session kept them.
struct ReplayNavigationTests {
    typealias Route = KanjiNavigation.Route

    /// A store with the Kanji walk of ``KanjiNavigation/walk(_:in:)`` as session `user`.
    private static func walked(snapshotInterval: UInt64 = 64) async throws -> (EngineFixture, Engine) {
        let fixture = try EngineFixture(snapshotInterval: snapshotInterval)
        let engine = try fixture.open(registering: [try KanjiNavigation.machine()])
        try await KanjiNavigation.walk("user", in: engine)
        return (fixture, engine)
    }

    @Test(arguments: [1, 4, 64] as [UInt64])
    func everyVersionOfTheCursorHasTheEntriesAndStateDataTheSessionHad(snapshotInterval: UInt64) async throws {
        let (fixture, engine) = try await Self.walked(snapshotInterval: snapshotInterval)
        defer { fixture.remove() }
        defer { engine.close() }
        var cursor = try engine.replayCursor(for: "user")
        var forward: [ReplayPoint] = [try cursor.seek(to: 1)]
        while let point = try cursor.stepForward() { forward.append(point) }
        #expect(forward.map(\.navigation.entries) == KanjiNavigation.stacks)
        #expect(forward.map(\.stateData) == KanjiNavigation.stateData)
        for version in (1...6).reversed() {
            let point = try cursor.seek(to: UInt64(version))
            #expect(point.navigation.entries == KanjiNavigation.stacks[version - 1], "version \(version)")
            #expect(point.stateData == KanjiNavigation.stateData[version - 1], "version \(version)")
        }
        let atFour = try cursor.seek(to: 4)
        #expect(
            try atFour.navigationPath(as: Route.self) == [
                .detail(.init(character: "日", meanings: ["day", "sun"])), .list(.init(word: "日本")),
                .detail(.init(character: "本", meanings: ["book", "origin"])),
            ])
    }

    @Test func aDiffComparesEntriesWithTheirData() async throws {
        let (fixture, engine) = try await Self.walked()
        defer { fixture.remove() }
        defer { engine.close() }
        // detail(日) under list(日本) at 3; detail(本) on top at 4; back at 5.
        let push = try engine.diff(SessionID("user"), from: 3, to: 4)
        #expect(push.navigation.pushed == [KanjiNavigation.entry("detail", KanjiNavigation.book)])
        #expect(push.navigation.popped.isEmpty)
        let back = try engine.diff(SessionID("user"), from: 4, to: 5)
        #expect(back.navigation.popped == [KanjiNavigation.entry("detail", KanjiNavigation.book)])
        #expect(back.navigation.pushed.isEmpty)
        #expect(back.navigation.after == KanjiNavigation.stacks[4])
        // Same screens, other data: detail(本) at 4 against detail(日) at 2 is a change.
        let twoToSix = try engine.diff(SessionID("user"), from: 2, to: 6)
        #expect(twoToSix.navigation.isEmpty)
        let fourToTwo = try engine.diff(SessionID("user"), from: 4, to: 2)
        #expect(fourToTwo.navigation.popped.map(\.screen) == ["detail", "list"])
        #expect(fourToTwo.navigation.popped.first?.data == KanjiNavigation.book)
    }

    @Test func exportThenImportGivesTheSameEntries() async throws {
        let (fixture, engine) = try await Self.walked(snapshotInterval: 2)
        defer { fixture.remove() }
        defer { engine.close() }
        let archive = try engine.exportSession(SessionID("user"))
        let target = try EngineFixture(snapshotInterval: 2)
        defer { target.remove() }
        // Nothing registered: the archive's definition replays it.
        let other = try target.open(registering: [])
        defer { other.close() }
        try await other.importSession(archive, as: SessionID("copy"))
        var cursor = try other.replayCursor(for: "copy")
        var points: [ReplayPoint] = [try cursor.seek(to: 1)]
        while let point = try cursor.stepForward() { points.append(point) }
        #expect(points.map(\.navigation.entries) == KanjiNavigation.stacks)
        #expect(points.map(\.stateData) == KanjiNavigation.stateData)

        let registered = try target.open(registering: [try KanjiNavigation.machine()])
        defer { registered.close() }
        let copy = try registered.session("copy")
        #expect(copy.navigationStack.entries == KanjiNavigation.stacks[5])
        #expect(copy.state.data == KanjiNavigation.stateData[5])
    }

    @Test func aForkAtAVersionHasThatVersionsEntriesAndGoesBackWithTheirData() async throws {
        let (fixture, engine) = try await Self.walked()
        defer { fixture.remove() }
        defer { engine.close() }
        try await engine.fork(SessionID("user"), at: 4, as: SessionID("fork"))
        let fork = try engine.session("fork")
        #expect(fork.navigationStack.entries == KanjiNavigation.stacks[3])
        try await fork.send("back")
        #expect(fork.navigationStack.entries == KanjiNavigation.stacks[4])
        #expect(fork.state.data == KanjiNavigation.stateData[4])
    }
}
