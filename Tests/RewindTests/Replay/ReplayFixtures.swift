import Foundation
import Rewind
import RewindTestSupport
import Synchronization

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
        actions: [
            "count": { scope in
                let count = scope.context["count"]?.doubleValue ?? 0
                scope.context = ["count": .number(count + 1)]
            }
        ])

    static func machine(stopTarget: String = "stopped") throws -> Machine {
        try Machine(definition(stopTarget: stopTarget), bindings: bindings)
    }
}
