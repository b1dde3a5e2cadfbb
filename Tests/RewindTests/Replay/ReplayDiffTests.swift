import Rewind
import RewindTestSupport
import Testing

@Suite("Diff of two points")
struct ReplayDiffTests {
    @Test func diffOfTheLoadingViewBetweenReadyAndError() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("loading-view", as: "v")
        let diff = try fixture.engine.diff(SessionID("v"), from: 2, to: 4)
        #expect(diff.fromVersion == 2 && diff.toVersion == 4)
        #expect(diff.exited == ["ready"])
        #expect(diff.entered == ["error"])
        #expect(
            diff.stateData == [
                JSONChange(path: JSONPath([.key("error")]), kind: .added("timeout")),
                JSONChange(path: JSONPath([.key("ready")]), kind: .removed(["items": ["a", "b"], "title": "Inbox"])),
            ])
        #expect(
            diff.payload == [
                JSONChange(
                    path: JSONPath(), kind: .changed(from: ["items": ["a", "b"], "title": "Inbox"], to: "timeout"))
            ])
        #expect(diff.context.isEmpty && diff.navigation.isEmpty)
    }

    @Test func diffBetweenTwoReadyStatesShowsTheChangedItemOnly() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("loading-view", as: "v")
        let diff = try fixture.engine.diff(SessionID("v"), from: 2, to: 6)
        #expect(diff.exited.isEmpty && diff.entered.isEmpty)
        #expect(diff.stateData.map(\.description) == [#"+ ready.items[2]: "c""#])
        #expect(diff.payload.map(\.description) == [#"+ items[2]: "c""#])
        #expect(!diff.isEmpty)
        #expect(try fixture.engine.diff(SessionID("v"), from: 3, to: 5).isEmpty)
    }

    @Test func diffShowsNavigationStackChangesAndNestedStates() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("browser", as: "b")
        let id = SessionID("b")
        let toSettings = try fixture.engine.diff(id, from: 3, to: 4)
        #expect(toSettings.exited == ["browse", "feed", "post", "postComments"])
        #expect(toSettings.entered == ["settings"])
        #expect(toSettings.navigation.pushed.map(\.screen) == ["settings"])
        #expect(toSettings.navigation.popped.isEmpty)

        let toProfile = try fixture.engine.diff(id, from: 3, to: 8)
        #expect(toProfile.exited == ["feed", "post", "postComments"])
        #expect(toProfile.entered == ["profile"])
        #expect(toProfile.navigation.before.map(\.screen) == ["feedList", "post", "postComments"])
        #expect(toProfile.navigation.after.map(\.screen) == ["profile"])
        #expect(toProfile.navigation.popped.map(\.screen) == ["postComments", "post", "feedList"])
        #expect(toProfile.navigation.pushed.map(\.screen) == ["profile"])
    }

    @Test func diffShowsContextChanges() async throws {
        let fixture = try ReplayFixture(registering: [try CounterMachine.machine()])
        let session = try await fixture.engine.startSession(id: "c", machine: "counter", context: ["count": 0])
        try await session.send("tick")
        try await session.send("tick")
        let diff = try fixture.engine.diff(session.id, from: 1, to: 3)
        #expect(diff.context == [JSONChange(path: JSONPath([.key("count")]), kind: .changed(from: 0, to: 2))])
        #expect(diff.exited.isEmpty && diff.entered.isEmpty)
    }
}
