import Foundation
import Observation
import Rewind
import RewindTestSupport
import Testing

/// `SessionModel` publishes a session's committed state to observers (SwiftUI's, here
/// `withObservationTracking`) after each commit, and nothing for a refused request.
@MainActor
struct SessionModelTests {
    typealias LoadingView = ExampleMachines.LoadingView
    typealias Kanji = ExampleMachines.Kanji

    /// Calls `onChange` (once) when a value `read` reads changes.
    func track(_ read: @escaping @MainActor () -> Void, onChange: @escaping @Sendable () -> Void) {
        withObservationTracking {
            read()
        } onChange: {
            onChange()
        }
    }

    @Test func aSendThatCommitsNotifiesAndTheNewValuesAreVisibleWhenItReturns() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try LoadingView.machine()])
        defer { engine.close() }
        let model = SessionModel(session: try await engine.openSession(id: "screen", machine: "loading-view"))
        #expect(model.activeStates == ["loading"])
        #expect(model.version == 1)

        let changes = LockedBox(0)
        track(
            {
                _ = model.activeStates
                _ = model.data
            }, onChange: { changes.withValue { $0 += 1 } })
        let inbox = LoadingView.Model(title: "Inbox", items: ["a"])
        try await model.send("loaded", payload: try JSONValue(encoding: inbox))
        #expect(changes.current == 1)
        #expect(model.activeStates == ["ready"])
        #expect(model.configuration == ["ready"])
        #expect(try model.data(of: "ready", as: LoadingView.Model.self) == inbox)
        #expect(model.version == 2)
        #expect(model.version == model.session.version)
    }

    @Test func aRefusedTransitionNotifiesNothingAndChangesNothing() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try LoadingView.machine()])
        defer { engine.close() }
        let model = SessionModel(session: try await engine.openSession(id: "screen", machine: "loading-view"))
        let changes = LockedBox(0)
        track(
            {
                _ = model.version
                _ = model.configuration
                _ = model.activeStates
                _ = model.data
                _ = model.context
                _ = model.navigationStack
            }, onChange: { changes.withValue { $0 += 1 } })
        await #expect(throws: MachineError.invalidTransition(from: ["loading"], event: "retry")) {
            try await model.send("retry")
        }
        await #expect(throws: MachineError.self) { try await model.enter("nowhere") }
        model.refresh()  // nothing was committed: nothing to publish
        #expect(changes.current == 0)
        #expect(model.activeStates == ["loading"])
        #expect(model.version == 1)
    }

    @Test func theNavigationStackAndPathFollowTheSession() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Kanji.machine()])
        defer { engine.close() }
        let session = try await engine.openSession(id: "reader", machine: "kanji")
        let model = SessionModel(session: session)
        #expect(model.navigationStack.screens == ["all"])
        #expect(model.path == [])

        let changes = LockedBox(0)
        track({ _ = model.path }, onChange: { changes.withValue { $0 += 1 } })
        try await model.enter(Kanji.State.detail, data: Kanji.Character(character: "日", meanings: ["day"]))
        #expect(changes.current == 1)
        #expect(model.navigationStack.screens == ["all", "detail"])
        #expect(model.path == ["detail"])
        #expect(model.data["detail"]?["character"] == "日")

        // A value that did not change notifies nothing: the context stays null.
        let contextChanges = LockedBox(0)
        track({ _ = model.context }, onChange: { contextChanges.withValue { $0 += 1 } })
        try await model.enter(Kanji.State.list, data: ["word": "日本"])
        #expect(model.path == ["detail", "list"])
        #expect(contextChanges.current == 0)

        // The typed path: each entry above the root with the data it was entered with.
        struct Route: Decodable, Equatable {
            var screen: String
            var data: JSONValue
        }
        #expect(
            try model.navigationPath(as: Route.self) == [
                Route(screen: "detail", data: ["character": "日", "meanings": ["day"]]),
                Route(screen: "list", data: ["word": "日本"]),
            ])
    }

    /// A commit the model did not request (here another task sends on the session itself) is
    /// published on the main actor after the commit: the observer is told, then sees it.
    @Test func commitsMadeOnTheSessionDirectlyArePublishedToo() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try LoadingView.machine()])
        defer { engine.close() }
        let session = try await engine.openSession(id: "screen", machine: "loading-view")
        let model = SessionModel(session: session)

        let (changed, notify) = AsyncStream<Void>.makeStream()
        track({ _ = model.activeStates }, onChange: { notify.yield() })
        _ = try await Task.detached { try await session.send("failed", payload: "offline") }.value
        var iterator = changed.makeAsyncIterator()
        _ = await iterator.next()
        // `onChange` ran as the refresh began changing the values; the refresh (synchronous, on
        // the main actor, as this test) has finished by the time this test runs again.
        #expect(model.activeStates == ["error"])
        #expect(model.data["error"] == "offline")
        #expect(model.version == 2)
    }

    /// The machine of the article *Using Rewind in an app*, as written there.
    static let reader = MachineDefinition("reader") {
        StateNode("all", navigation: .popToRoot) {
            On("open", to: "detail")  // the payload becomes detail's data
        }
        StateNode("detail", navigation: .push()) {
            On("back", to: "all", navigation: .pop)
        }
    }

    /// The article's `openReader()`, with the store in `directory` instead of Application
    /// Support, `Recent.add` appending to `recent`, and the engine returned so the test can close it.
    func openReader(in directory: String, recent: LockedBox<[JSONValue]>) async throws -> (Engine, SessionModel) {
        let engine = try Engine(directory: directory)  // durable by default
        try engine.register(try Machine(Self.reader))
        let session = try await engine.openSession(id: "reader", machine: "reader") { session in
            session.onDidEnter("detail") { change in
                let shown = change.data  // runs after the commit,
                Task { @MainActor in recent.append(shown) }  // off the main actor: hop
            }
        }
        return (engine, SessionModel(session: session))
    }

    /// The Rewind calls of *Using Rewind in an app*: open at launch, send through the model, the
    /// back binding's arithmetic, and the second launch resuming where the first left off.
    @Test func theArticlesRewindCallsRunAsWritten() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let recent = LockedBox<[JSONValue]>([])
        do {
            let (engine, model) = try await openReader(in: directory.path + "/rewind-store", recent: recent)
            defer { engine.close() }
            #expect(model.path == [])
            try await model.send("open", payload: ["character": "日"])  // committed, then published
            #expect(model.path == ["detail"])
            #expect(model.data["detail"] == ["character": "日"])

            // SwiftUI set a shorter path (the back button): one `back` per screen removed.
            let newPath: [String] = []
            let removed = model.path.count - newPath.count
            for _ in 0..<removed { try await model.send("back") }
            #expect(model.path == newPath)
            #expect(model.activeStates == ["all"])
            try await model.send("open", payload: ["character": "月"])
        }
        // The second launch resumes the session with its stack.
        let (engine, model) = try await openReader(in: directory.path + "/rewind-store", recent: recent)
        defer { engine.close() }
        #expect(model.path == ["detail"])
        #expect(model.data["detail"] == ["character": "月"])
        #expect(model.version == 4)
        // The SwiftUI section's path: the entries above the root as `Route`s, with their data.
        struct Route: Decodable, Hashable {
            var screen: String
            var data: JSONValue
        }
        #expect(
            (try? model.navigationPath(as: Route.self)) ?? [] == [Route(screen: "detail", data: ["character": "月"])])
    }

    /// Main-actor code (an app's launch code, top-level code) passes `startSession` and
    /// `openSession` a `configure` closure that captures main-actor state: the calls run on the
    /// caller's actor, so this compiles, and `configure` runs before the session is returned.
    @Test func startAndOpenTakeAConfigureClosureFromTheMainActor() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try LoadingView.machine()])
        defer { engine.close() }
        var configured: [String] = []  // main-actor state, mutated from `configure`
        let entered = LockedBox<[String]>([])
        let started = try await engine.startSession(id: "started", machine: "loading-view") { session in
            configured.append("start \(session.id)")
            session.onDidEnter("error") { _ in entered.append("started") }
        }
        let opened = try await engine.openSession(id: "started", machine: "loading-view") { session in
            configured.append("open \(session.id) at \(session.version)")
            session.onDidEnter("error") { _ in entered.append("opened") }
        }
        #expect(configured == ["start started", "open started at 1"])
        try await started.send("failed", payload: "offline")
        try await opened.reload()
        #expect(opened.activeStates == ["error"])
        #expect(entered.current == ["started"])
    }
}
