import Rewind
import RewindExamples

/// One example machine walked through a scenario: how its session begins (a start with a context,
/// or GKStateMachine's first `enter`), the requests before a restart, and the requests after it.
public struct ExampleScenario: Sendable, CustomStringConvertible {
    /// The example's name (the registered machine name).
    public var name: String
    /// The compiled machine.
    public var machine: @Sendable () throws -> Machine
    /// The first request: `.start(context:)` (``Engine/startSession(id:machine:context:isolation:configure:)``)
    /// or `.enter(state:data:)` (``Engine/makeSession(id:machine:)`` then ``Session/enter(_:data:)``).
    package var opening: StepRecording.Request
    /// The requests made before the restart.
    package var steps: [StepRecording.Request]
    /// The requests made after the restart (on the resumed session and on its twin).
    package var continuation: [StepRecording.Request]

    /// The scenario's name.
    public var description: String { name }

    /// Begins a session `id` of this scenario's machine (registered under ``name``) in `engine`.
    public func begin(_ id: String, in engine: Engine) async throws -> Session {
        switch opening {
        case .start(let context):
            return try await engine.startSession(id: id, machine: name, context: context)
        case .enter, .send, .deliverDue, .migrate:
            let session = try engine.makeSession(id: try SessionID(id), machine: name)
            try await session.run(opening)
            return session
        }
    }

    /// Every example machine of ``ExampleMachines``, each with a scenario that ends with state
    /// data, history memory or parallel regions where the machine has them.
    public static let all: [ExampleScenario] = [
        ExampleScenario(
            name: "onboarding", machine: { try ExampleMachines.Onboarding.machine() },
            opening: .start(context: ["user": "ada"]),
            steps: [.send(Event("launch")), .send(Event("start"))],
            continuation: [.send(Event("loggedIn"))]),
        ExampleScenario(
            name: "map", machine: { try ExampleMachines.Map.machine() },
            opening: .enter(state: "start", data: .null),
            steps: [
                .enter(state: "preview", data: ["route": "home"]), .enter(state: "navigation", data: .null),
                .enter(state: "start", data: .null), .enter(state: "preview", data: ["route": "work"]),
            ],
            continuation: [.enter(state: "navigation", data: .null), .enter(state: "start", data: .null)]),
        ExampleScenario(
            name: "kanji", machine: { try ExampleMachines.Kanji.machine() },
            opening: .enter(state: "all", data: .null),
            steps: [
                .enter(state: "detail", data: ["character": "日", "meanings": ["sun", "day"]]),
                .enter(state: "list", data: ["word": "日本"]),
                .enter(state: "detail", data: ["character": "本", "meanings": ["book", "origin"]]),
            ],
            continuation: [
                .enter(state: "all", data: .null),
                .enter(state: "detail", data: ["character": "月", "meanings": ["moon"]]),
            ]),
        ExampleScenario(
            name: "statekit", machine: { try ExampleMachines.StateKit.machine() },
            opening: .start(context: .null),
            steps: [
                .send(Event("apiRespondedError")), .send(Event("userPressedRetryButton")),
                .send(Event("apiRespondedSuccessfully")),
            ],
            continuation: [.send(Event("apiRespondedError")), .send(Event("userPressedRetryButton"))]),
        ExampleScenario(
            name: "loading-view", machine: { try ExampleMachines.LoadingView.machine() },
            opening: .start(context: ["attempts": 0]),
            steps: [
                .send(Event("loaded", payload: ["title": "Inbox", "items": ["a", "b"]])), .send(Event("reload")),
                .send(Event("failed", payload: "timeout")), .send(Event("retry")),
                .send(Event("loaded", payload: ["title": "Inbox", "items": ["a", "b", "c"]])),
            ],
            continuation: [.send(Event("reload")), .send(Event("loaded", payload: ["title": "Sent", "items": []]))]),
        ExampleScenario(
            name: "browser", machine: { try ExampleMachines.Browser.machine() },
            opening: .start(context: ["theme": "dark"]),
            steps: [.send(Event("open")), .send(Event("showComments")), .send(Event("openSettings"))],
            continuation: [
                .send(Event("closeSettings")), .send(Event("back")), .send(Event("showProfile")),
                .send(Event("openSettings")), .send(Event("closeSettings")),
            ]),
        ExampleScenario(
            name: "upload", machine: { try ExampleMachines.Upload.machine() },
            opening: .start(context: .null),
            steps: [.send(Event("start")), .send(Event("rendered"))],
            continuation: [.send(Event("sent")), .send(Event("reset")), .send(Event("start")), .send(Event("cancel"))]),
    ]
}

extension Session {
    /// Makes `request` through the public API (`send`, `enter`, `deliverDueSends`); a `.start`
    /// request is refused with ``EngineError/sessionExists(_:)`` (start sessions with the engine),
    /// a `.migrate` one with ``EngineError/reservedEventName(_:)`` (the engine records migrations
    /// itself, when a session resumes under another definition).
    @discardableResult
    package func run(_ request: StepRecording.Request) async throws -> Step {
        switch request {
        case .start:
            throw EngineError.sessionExists(id)
        case .send(let event):
            return try await send(event)
        case .enter(let state, let data):
            return try await enter(state, data: data)
        case .deliverDue(let event):
            guard let step = try await deliverDueSends().first else {
                throw EngineError.delayedSendNotDue(
                    event: event.name, atMilliseconds: Timestamp.now().microsecondsSince1970 / 1000)
            }
            return step
        case .migrate:
            throw EngineError.reservedEventName(StepRecording.migrateEvent)
        }
    }
}
