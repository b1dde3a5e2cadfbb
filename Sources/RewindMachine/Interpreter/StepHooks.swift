/// The hooks of a running machine and the order they run in for a committed ``Step``.
///
/// Shared by the in-memory ``Interpreter`` and by the engine's persisted sessions, so both fire
/// hooks identically: ``onWillTransition(_:)``; then for each microstep the exited states'
/// `onWillExit(_:_:)` (innermost first), the ``onTransition(_:)`` hooks (transition actions), the
/// entered states' `onDidEnter(_:_:)` (outermost first); finally ``onDidTransition(_:)``.
///
/// A `StepHooks` is a reference type confined to its owner's thread or actor (not `Sendable`).
public final class StepHooks {
    /// Every hook registered, by kind.
    private struct Registry {
        var didEnter: [String: [(StateChange) -> Void]] = [:]
        var willExit: [String: [(StateChange) -> Void]] = [:]
        var update: [String: [(Double) -> Void]] = [:]
        var willTransition: [(StateChange) -> Void] = []
        var didTransition: [(StateChange) -> Void] = []
        var transition: [(Microstep) -> Void] = []

        var isEmpty: Bool {
            didEnter.isEmpty && willExit.isEmpty && update.isEmpty && willTransition.isEmpty
                && didTransition.isEmpty && transition.isEmpty
        }
    }

    /// The hooks, in one stored property: one dynamic exclusivity check per use, not one per kind
    /// (``isEmpty`` is asked on every send; six checks were ~450 instructions of a durable send).
    private var registry = Registry()

    /// Creates an empty set of hooks.
    public init() {}

    /// Another set holding the same hooks (registering in one does not change the other): a
    /// session runs a copy taken under its lock, so hooks registered meanwhile never race a run.
    package func copy() -> StepHooks {
        let copy = StepHooks()
        copy.registry = registry
        return copy
    }

    /// Whether no hook is registered (the engine then skips building hook arguments).
    public var isEmpty: Bool { registry.isEmpty }

    /// Runs `hook` each time `state` is entered (GKState's `didEnter(from:)`).
    public func onDidEnter(_ state: String, _ hook: @escaping (StateChange) -> Void) {
        registry.didEnter[state, default: []].append(hook)
    }

    /// Runs `hook` each time `state` is exited (GKState's `willExit(to:)`).
    public func onWillExit(_ state: String, _ hook: @escaping (StateChange) -> Void) {
        registry.willExit[state, default: []].append(hook)
    }

    /// Runs `hook` on `update(deltaTime:)` while `state` is active (GKState's `update(deltaTime:)`).
    public func onUpdate(_ state: String, _ hook: @escaping (_ deltaTime: Double) -> Void) {
        registry.update[state, default: []].append(hook)
    }

    /// Runs `hook` before each step's exits (StateViewController's `willTransition(to:)`); the
    /// change's `data` is the next state's data (see ``StateChange/data``).
    public func onWillTransition(_ hook: @escaping (StateChange) -> Void) {
        registry.willTransition.append(hook)
    }

    /// Runs `hook` after each step's entries (StateViewController's `didTransition(from:)`); the
    /// change's `data` is the next state's data (see ``StateChange/data``).
    public func onDidTransition(_ hook: @escaping (StateChange) -> Void) {
        registry.didTransition.append(hook)
    }

    /// Runs `hook` for each microstep between its exits and its entries (transition actions).
    public func onTransition(_ hook: @escaping (Microstep) -> Void) {
        registry.transition.append(hook)
    }

    /// Runs the hooks of a committed `step` of `machine`, whose state before it was `previous`.
    /// A step without an event (the first entry) tells its hooks there was no previous state.
    public func run(_ step: Step, of machine: Machine, previous: MachineState) {
        let hooks = registry
        if hooks.isEmpty { return }
        let from: [String]? = step.event == nil ? nil : machine.atomicStates(of: step.source)
        let to = machine.atomicStates(of: step.target)
        let change = StateChange(
            state: nil, event: step.event, from: from, to: to, data: Self.nextData(of: step, to: to, machine: machine))
        for hook in hooks.willTransition { hook(change) }
        for microstep in step.microsteps {
            for id in microstep.exited {
                for hook in hooks.willExit[id] ?? [] {
                    hook(
                        StateChange(
                            state: id, event: step.event, from: from, to: to, data: previous.data[id] ?? .null))
                }
            }
            for hook in hooks.transition { hook(microstep) }
            for id in microstep.entered {
                for hook in hooks.didEnter[id] ?? [] {
                    hook(
                        StateChange(
                            state: id, event: step.event, from: from, to: to,
                            data: step.state.data[id] ?? microstep.data[id] ?? .null))
                }
            }
        }
        for hook in hooks.didTransition { hook(change) }
    }

    /// The data the machine-wide hooks see (StateViewController's `willTransition(to: .ready(model))`):
    /// what the innermost next atomic state (`to.last`) carries after `step`, or, when it carries
    /// none, what its nearest ancestor carries (a compound state entered with data, whose initial
    /// child carries none); `null` when none of them does.
    static func nextData(of step: Step, to: [String], machine: Machine) -> JSONValue {
        let data = step.state.data
        if data.isEmpty { return .null }
        var id = to.last
        while let current = id {
            if let value = data[current], !value.isNull { return value }
            id = machine.parent(of: current)
        }
        return .null
    }

    /// Forwards `update(deltaTime:)` to the hooks of the states active in `state`, in document order.
    public func update(deltaTime: Double, in state: MachineState) {
        for id in state.configuration {
            for hook in registry.update[id] ?? [] { hook(deltaTime) }
        }
    }
}
