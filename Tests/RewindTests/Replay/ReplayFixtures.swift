import Foundation
import Rewind
import RewindTestSupport
import Synchronization

/// Shared fixtures of the replay tests: an engine in a temporary directory with every example
/// machine registered, and one recorded session per example.
final class ReplayFixture {
    let directory: TemporaryDirectory
    let engine: Engine

    init(snapshotInterval: UInt64 = 4, registering machines: [Machine]? = nil) throws {
        directory = try TemporaryDirectory(prefix: "rewind-replay")
        engine = try Engine(
            directory: directory.path,
            configuration: EngineConfiguration(durability: .noSync, snapshotInterval: snapshotInterval))
        for machine in try machines ?? Self.exampleMachines() {
            try engine.register(machine)
        }
    }

    deinit {
        engine.close()
        directory.remove()
    }

    static func exampleMachines() throws -> [Machine] {
        [
            try ExampleMachines.Onboarding.machine(), try ExampleMachines.Kanji.machine(),
            try ExampleMachines.Map.machine(), try ExampleMachines.StateKit.machine(),
            try ExampleMachines.LoadingView.machine(), try ExampleMachines.Browser.machine(),
            try ExampleMachines.Upload.machine(),
        ]
    }

    /// One step of a scripted session.
    enum Request {
        case send(String, JSONValue = .null)
        case enter(String, JSONValue = .null)
    }

    /// A scripted session of each example: its machine, whether it starts normally (else with a
    /// first `enter`), and its requests.
    static let scripts: [(machine: String, starts: Bool, requests: [Request])] = [
        ("onboarding", true, [.send("launch"), .send("start"), .send("loggedIn")]),
        ("kanji", false, [
            .enter("all"), .enter("detail", ["character": "日", "meanings": ["day", "sun"]]),
            .enter("list", ["word": "日本"]), .enter("detail", ["character": "本", "meanings": ["book"]]),
            .enter("all"),
        ]),
        ("map", false, [
            .enter("start"), .enter("preview"), .enter("navigation"), .enter("start"), .enter("preview"), .enter("start"),
        ]),
        ("statekit", true, [
            .send("apiRespondedError"), .send("userPressedRetryButton"), .send("apiRespondedSuccessfully"),
        ]),
        ("loading-view", true, [
            .send("loaded", ["title": "Inbox", "items": ["a", "b"]]), .send("reload"), .send("failed", "timeout"),
            .send("retry"), .send("loaded", ["title": "Inbox", "items": ["a", "b", "c"]]),
        ]),
        ("browser", true, [
            .send("open"), .send("showComments"), .send("openSettings"), .send("closeSettings"), .send("back"),
            .send("close"), .send("showProfile"), .send("showFeed"),
        ]),
        ("upload", true, [
            .send("start"), .send("sent"), .send("rendered"), .send("reset"), .send("start"), .send("cancel"),
        ]),
    ]

    /// Records the scripted session of `machine` as `id`; returns the live session.
    @discardableResult
    func record(_ machine: String, as id: String, configure: (Session) -> Void = { _ in }) async throws -> Session {
        guard let script = Self.scripts.first(where: { $0.machine == machine }) else {
            throw EngineError.unknownMachine(machine)
        }
        let session: Session
        if script.starts {
            session = try await engine.startSession(id: id, machine: machine, configure: configure)
        } else {
            session = try engine.makeSession(id: try SessionID(id), machine: machine)
            configure(session)
        }
        for request in script.requests {
            switch request {
            case .send(let event, let payload): try await session.send(event, payload: payload)
            case .enter(let state, let data): try await session.enter(state, data: data)
            }
        }
        return session
    }

    /// Records every example's scripted session (as `<machine>-1`); returns their ids.
    func recordAllExamples() async throws -> [SessionID] {
        var ids: [SessionID] = []
        for script in Self.scripts {
            let id = "\(script.machine)-1"
            try await record(script.machine, as: id)
            ids.append(try SessionID(id))
        }
        return ids
    }
}

/// A thread-safe list that hooks append to.
final class EventLog: Sendable {
    private let items = Mutex<[String]>([])

    func append(_ item: String) { items.withLock { $0.append(item) } }
    var entries: [String] { items.withLock { $0 } }

    /// Registers hooks that log every entry, exit and transition of `machine`'s states.
    func register(
        on machine: Machine,
        onDidEnter: (String, @escaping @Sendable (StateChange) -> Void) -> Void,
        onWillExit: (String, @escaping @Sendable (StateChange) -> Void) -> Void,
        onDidTransition: (@escaping @Sendable (StateChange) -> Void) -> Void
    ) {
        for state in machine.stateIDs {
            onDidEnter(state) { [self] change in append("enter \(state) \(Self.text(change.data))") }
            onWillExit(state) { [self] _ in append("exit \(state)") }
        }
        onDidTransition { [self] change in append("did \(change.event?.name ?? "-") → \(change.to)") }
    }

    static func text(_ value: JSONValue) -> String {
        (try? value.encoded()).map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }
}

/// A counter machine with a named guard and a custom action: `tick` (allowed while the guard
/// holds) increments the context's `count`; `stop` moves to `stopped`.
enum CounterMachine {
    static func definition(stopTarget: String = "stopped") -> MachineDefinition {
        MachineDefinition("counter") {
            StateNode("counting") {
                On("tick", to: "counting", guard: .named("allowed"), actions: [.custom("count")])
                On("stop", to: stopTarget)
            }
            StateNode("stopped") { On("resume", to: "counting") }
        }
    }

    static let bindings = Bindings(
        guards: ["allowed": { _, _ in true }],
        actions: ["count": { scope in
            let count = scope.context["count"]?.doubleValue ?? 0
            scope.context = ["count": .number(count + 1)]
        }])

    static func machine(stopTarget: String = "stopped") throws -> Machine {
        try Machine(definition(stopTarget: stopTarget), bindings: bindings)
    }
}
