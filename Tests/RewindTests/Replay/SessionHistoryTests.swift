import Rewind
import RewindTestSupport
import Testing

@Suite("Session history")
struct SessionHistoryTests {
    @Test func historyListsEveryRecordWithTimeEventSourceTargetAndNavigation() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("browser", as: "b")
        let id = SessionID("b")
        let records = try fixture.engine.store.read { try $0.records(of: id) }
        let history = try fixture.engine.history(of: id)
        #expect(history.count == records.count)
        #expect(history == records.map(HistoryEntry.init))
        #expect(
            history.map(\.event) == [
                "rewind.start", "open", "showComments", "openSettings", "closeSettings", "back", "close", "showProfile",
                "showFeed",
            ])
        #expect(history[3].source == ["app", "browse", "feed", "post", "postComments"])
        #expect(history[3].target == ["app", "settings"])
        #expect(history[3].navigation == [.push("settings")])
    }

    @Test func historyFiltersByEventStateAndVersions() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("browser", as: "b")
        let id = SessionID("b")
        let engine = fixture.engine

        let opens = try engine.history(of: id, filter: HistoryFilter(events: ["open", "close"]))
        #expect(opens.map(\.version) == [2, 7])

        // `post` is active before or after versions 2…7 (a compound state matches its children's steps).
        let post = try engine.history(of: id, filter: HistoryFilter(states: ["post"]))
        #expect(post.map(\.version) == [2, 3, 4, 5, 6, 7])
        let settings = try engine.history(of: id, filter: HistoryFilter(states: ["settings"]))
        #expect(settings.map(\.version) == [4, 5])

        let ranged = try engine.history(of: id, filter: HistoryFilter(states: ["feedList"], versions: 2...8))
        #expect(ranged.map(\.version) == [2, 7, 8])
        #expect(try engine.history(of: id, limit: 3).map(\.version) == [1, 2, 3])
        #expect(try engine.history(of: id, filter: HistoryFilter(events: ["nothing"])).isEmpty)
        #expect(throws: EngineError.unknownSession(SessionID("nobody"))) {
            try engine.history(of: SessionID("nobody"))
        }
    }
}
