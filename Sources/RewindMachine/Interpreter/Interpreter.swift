/// Runs a ``Machine`` for one session: owns its ``MachineState``, evaluates each request purely,
/// lets a persistence callback veto it, commits, and then runs the hooks of the step.
///
/// The order for every request is: evaluate → ``perform`` (persist; throwing vetoes the step and
/// leaves the state unchanged, no hook runs) → commit the new state → hooks → queued requests
/// (each again evaluate → perform → commit → hooks) → delayed sends that are due.
///
/// Hooks run in this order within a step: ``onWillTransition(_:)``; then for each microstep the
/// exited states' `onWillExit(_:_:)` (innermost first), the ``onTransition(_:)`` hooks
/// (transition actions), the entered states' `onDidEnter(_:_:)` (outermost first); finally
/// ``onDidTransition(_:)``. Hooks see the committed state. A request made from inside a hook
/// (``send(_:)``, `enter(_:data:)`, ``setNeedsTransition(to:data:)``) is queued and runs after the
/// current step, never re-entrantly (StateViewController's `setNeedsTransition`).
///
/// An interpreter is a reference type confined to one thread or actor (it is not `Sendable`).
public final class Interpreter {
    /// A request queued from inside a hook.
    private enum Request {
        case send(Event)
        case enter(String, JSONValue)
    }

    /// The machine being run.
    public let machine: Machine
    /// The current state; changes only when a step is committed.
    public private(set) var state: MachineState
    /// The clock that delayed sends are measured by.
    public let clock: any MachineClock
    /// Called with every step before it is committed: the engine persists it here. Throwing
    /// vetoes the step: the state stays as it was and no hook runs.
    public var perform: ((Step) throws -> Void)?
    /// Errors thrown by requests queued from inside hooks (they cannot reach the hook's caller).
    public private(set) var deferredErrors: [any Error] = []

    /// The hooks, run in ``StepHooks``' order after each committed step.
    public let hooks = StepHooks()
    private var queue: [Request] = []
    private var isBusy = false
    private var isDelivering = false

    /// Creates an interpreter for `machine`, in `state` (a fresh, unstarted state by default, or a
    /// restored one).
    public init(machine: Machine, state: MachineState = MachineState(), clock: any MachineClock = SystemClock()) {
        self.machine = machine
        self.state = state
        self.clock = clock
    }

    // MARK: Hooks

    /// Runs `hook` each time `state` is entered (GKState's `didEnter(from:)`).
    public func onDidEnter(_ state: String, _ hook: @escaping (StateChange) -> Void) {
        hooks.onDidEnter(state, hook)
    }

    /// Runs `hook` each time `state` is exited (GKState's `willExit(to:)`).
    public func onWillExit(_ state: String, _ hook: @escaping (StateChange) -> Void) {
        hooks.onWillExit(state, hook)
    }

    /// Runs `hook` on ``update(deltaTime:)`` while `state` is active (GKState's `update(deltaTime:)`).
    public func onUpdate(_ state: String, _ hook: @escaping (_ deltaTime: Double) -> Void) {
        hooks.onUpdate(state, hook)
    }

    /// Runs `hook` before each step's exits (StateViewController's `willTransition(to:)`); the
    /// change's `data` is the next state's data (see ``StateChange/data``).
    public func onWillTransition(_ hook: @escaping (StateChange) -> Void) {
        hooks.onWillTransition(hook)
    }

    /// Runs `hook` after each step's entries (StateViewController's `didTransition(from:)`); the
    /// change's `data` is the next state's data (see ``StateChange/data``).
    public func onDidTransition(_ hook: @escaping (StateChange) -> Void) {
        hooks.onDidTransition(hook)
    }

    /// Runs `hook` for each microstep between its exits and its entries (transition actions).
    public func onTransition(_ hook: @escaping (Microstep) -> Void) {
        hooks.onTransition(hook)
    }

    // MARK: Requests

    /// Returns the errors of queued requests collected so far and forgets them.
    public func takeDeferredErrors() -> [any Error] {
        defer { deferredErrors.removeAll() }
        return deferredErrors
    }

    /// Replaces the current state without running anything (restoring a session, jumping during a
    /// replay). Pending queued requests are dropped.
    public func restore(_ state: MachineState) {
        queue.removeAll()
        self.state = state
    }

    /// Starts (or restarts from scratch) the machine: the first entry, hooks see no previous state.
    @discardableResult
    public func start(context: JSONValue = .null) throws -> Step {
        let step = try machine.start(context: context, now: clock.now)
        try commit(step)
        return step
    }

    /// Sends an event. Returns the step, or `nil` when called from inside a hook (the request is
    /// queued and runs after the current step).
    ///
    /// - Throws: what ``Machine/send(_:in:now:)-(Event,_,_)`` or ``perform`` throws; the state is unchanged.
    @discardableResult
    public func send(_ event: Event) throws -> Step? {
        if isBusy {
            queue.append(.send(event))
            return nil
        }
        let step = try machine.send(event, in: state, now: clock.now)
        try commit(step)
        return step
    }

    /// Sends the event named `name`.
    @discardableResult
    public func send(_ name: String, payload: JSONValue = .null) throws -> Step? {
        try send(Event(name, payload: payload))
    }

    /// Moves directly to `id` (GKStateMachine's `enter(_:)`); before start, starts there. Returns
    /// `nil` when called from inside a hook (queued).
    ///
    /// - Throws: ``MachineError/cannotEnter(from:to:)`` and what ``perform`` throws.
    @discardableResult
    public func enter(_ id: String, data: JSONValue = .null) throws -> Step? {
        if isBusy {
            queue.append(.enter(id, data))
            return nil
        }
        let step = try machine.enter(id, data: data, in: state, now: clock.now)
        try commit(step)
        return step
    }

    /// Whether `enter(_:data:)` would be accepted now (GKStateMachine's `canEnterState`).
    public func canEnter(_ id: String) -> Bool {
        machine.canEnter(id, in: state)
    }

    /// Requests a move to `id` after the current step (StateViewController's
    /// `setNeedsTransition(to:)`); outside a step it moves at once.
    public func setNeedsTransition(to id: String, data: JSONValue = .null) throws {
        try enter(id, data: data)
    }

    /// Forwards `update(deltaTime:)` to the hooks of the active states, in document order.
    public func update(deltaTime: Double) {
        let wasBusy = isBusy
        isBusy = true
        hooks.update(deltaTime: deltaTime, in: state)
        isBusy = wasBusy
        if !wasBusy { drainQueue() }
    }

    /// Delivers every delayed send that is due at the clock's current time, each as its own step
    /// (sends due at once after a step are delivered automatically).
    ///
    /// - Throws: ``MachineError/eventLoopLimitExceeded(limit:event:configuration:)`` when sends
    ///   keep scheduling due sends for more than the machine's microstep limit of steps (the
    ///   steps before it stay committed), and what ``perform`` throws.
    @discardableResult
    public func deliverDueSends() throws -> [Step] {
        var steps: [Step] = []
        let wasDelivering = isDelivering
        isDelivering = true
        defer { isDelivering = wasDelivering }
        while let step = try machine.sendNextDue(in: state, now: clock.now) {
            if steps.count >= machine.options.microstepLimit {
                throw MachineError.eventLoopLimitExceeded(
                    limit: machine.options.microstepLimit, event: step.event?.name,
                    configuration: state.configuration)
            }
            try commit(step)
            steps.append(step)
        }
        return steps
    }

    // MARK: Steps

    private func commit(_ step: Step) throws {
        try perform?(step)
        let previous = state
        state = step.state
        isBusy = true
        hooks.run(step, of: machine, previous: previous)
        isBusy = false
        drainQueue()
    }

    private func drainQueue() {
        while !queue.isEmpty {
            let request = queue.removeFirst()
            do {
                switch request {
                case .send(let event): try send(event)
                case .enter(let id, let data): try enter(id, data: data)
                }
            } catch {
                deferredErrors.append(error)
            }
        }
        do {
            try deliverDueSendsIfIdle()
        } catch {
            deferredErrors.append(error)
        }
    }

    private func deliverDueSendsIfIdle() throws {
        guard !isBusy, !isDelivering, let first = state.pendingSends.first,
            first.due <= clock.now
        else { return }
        try deliverDueSends()
    }
}
