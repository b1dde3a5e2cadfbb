/// A runnable statechart: a ``MachineDefinition`` checked, indexed and bound to its code.
///
/// A machine is an immutable, `Sendable` value; it holds no current state. Every operation takes a
/// ``MachineState`` and returns a ``Step`` (the new state plus every microstep taken), computed
/// purely: nothing runs outside the step, so a caller can persist the step before committing it and
/// running hooks (see ``Interpreter``).
///
/// Compiling also builds a table of precomputed outcomes (each configuration × each event name,
/// where no guard, action or history is involved): `send` reads its steps from it, and prepared
/// events (``prepare(_:)``, then ``send(_:in:now:)-(PreparedEvent,_,_)`` into a state changed in
/// place, with a ``StepSummary`` instead of a ``Step``) use it without building a step at all. See
/// the RewindMachine article *Prepared events*.
///
/// Semantics follow the W3C SCXML algorithm (macrostep / microstep): see the module's overview
/// article for the rules on unhandled events, bubbling, conflicts, history, final states,
/// eventless transitions, raised events and navigation.
public struct Machine: Sendable {
    /// How a machine treats an external event that no transition handles.
    public enum UnhandledEventPolicy: Hashable, Sendable {
        /// Throw ``MachineError/invalidTransition(from:event:)`` unless an active state lists the
        /// event in ``StateDefinition/ignoredEvents`` (the default).
        case reject
        /// Ignore it, as the W3C algorithm does (SCXML documents use this).
        case ignore
    }

    /// Options of a compiled machine.
    public struct Options: Hashable, Sendable {
        /// What to do with an external event no transition handles.
        public var unhandledEvents: UnhandledEventPolicy
        /// The most microsteps one macrostep may take before the machine is declared looping.
        public var microstepLimit: Int

        /// Creates options.
        public init(unhandledEvents: UnhandledEventPolicy = .reject, microstepLimit: Int = 1_000) {
            self.unhandledEvents = unhandledEvents
            self.microstepLimit = microstepLimit
        }
    }

    /// The event name recorded for a direct move made with `enter(_:data:in:now:)`. A literal
    /// (inlinable, not a lazily initialized stored global): the engine checks every sent event
    /// against it.
    @inlinable public static var enterEventName: String { "enter" }

    /// The definition the machine was compiled from.
    public let definition: MachineDefinition
    /// Problems that do not prevent running: unreachable states, transitions never taken.
    public let warnings: [ValidationWarning]
    /// The machine's options.
    public let options: Options
    /// The guards and actions the machine was compiled with: what compiles another definition
    /// of the same machine (an earlier version stored with its sessions) the way this one was.
    public let bindings: Bindings
    let chart: CompiledChart
    /// The table of precomputed outcomes behind prepared events.
    let preparedTable: PreparedTable
    /// Whether `send` reads steps from ``preparedTable`` (and flat machines' compile-time steps);
    /// off only in a machine made by ``withoutPrecomputedSteps()``.
    private(set) var precomputesSteps = true

    /// Compiles a definition, binding its named guards and actions.
    ///
    /// - Throws: ``MachineError/invalidDefinition(_:)`` listing every ``ValidationError`` found:
    ///   unknown targets, duplicate ids, unresolvable initial children, history outside a
    ///   compound state, transitions from final states, unbound guards and actions.
    public init(_ definition: MachineDefinition, bindings: Bindings = Bindings(), options: Options = Options()) throws {
        var compiler = ChartCompiler(definition: definition, bindings: bindings)
        let (chart, warnings) = try compiler.compile()
        self.definition = definition
        self.warnings = warnings
        self.options = options
        self.bindings = bindings
        self.chart = chart
        self.preparedTable = PreparedTable(chart: chart, microstepLimit: options.microstepLimit)
    }

    /// Every state id, in document order.
    public var stateIDs: [String] { Array(chart.ids.dropFirst()) }

    /// The ids of the atomic states (and final states) among `configuration`, in document order.
    public func atomicStates(of configuration: [String]) -> [String] {
        configuration.filter { id in chart.index[id].map(chart.isAtomic) ?? false }
    }

    /// The id of the state that contains `id`, or `nil` for a top-level state (or an unknown id).
    public func parent(of id: String) -> String? {
        guard let state = chart.index[id], chart.parent[state] > 0 else { return nil }
        return chart.ids[chart.parent[state]]
    }

    // MARK: Start

    /// Enters the machine's initial configuration and runs to completion (eventless transitions,
    /// raised events): the first step, with no previous state.
    ///
    /// - Parameters:
    ///   - context: The machine's initial context.
    ///   - now: The current time of the interpreter's clock, since its epoch (for delayed sends).
    public func start(context: JSONValue = .null, now: Duration = .zero) throws -> Step {
        try start(targets: chart.initialTargets[0], data: .null, context: context, now: now)
    }

    private func start(targets: [Int], data: JSONValue, context: JSONValue, now: Duration) throws -> Step {
        var evaluation = try Evaluation(
            chart: chart, state: MachineState(context: context), microstepLimit: options.microstepLimit, now: now)
        try evaluation.start(targets: targets, data: data)
        let state = evaluation.state
        return Step(
            event: nil, source: [], target: state.configuration, microsteps: evaluation.microsteps,
            state: state, logs: evaluation.logs)
    }

    // MARK: Events

    /// Processes one external event: selects the transitions of the active states (an event not
    /// handled by a state bubbles to its ancestors), takes them, then runs to completion.
    ///
    /// - Throws: ``MachineError/invalidTransition(from:event:)`` when no transition handles the
    ///   event (unless ignored), ``MachineError/eventLoopLimitExceeded(limit:event:configuration:)``,
    ///   ``MachineError/machineFinished(configuration:)``, ``MachineError/notStarted``. On error the
    ///   given state is untouched (it is a value).
    public func send(_ event: Event, in state: MachineState, now: Duration = .zero) throws -> Step {
        try send(event, in: state, now: now, rejectUnhandled: options.unhandledEvents == .reject)
    }

    /// Processes one external event in `state`, in place: `state` becomes the step's state (it is
    /// unchanged when the call throws), and the step is returned. The entry point of a recorder
    /// that keeps the state (the engine's sessions): it needs no copy of the state, and a step
    /// read from the table of precomputed outcomes shares its arrays with the table and with
    /// `state`. Otherwise as ``send(_:in:now:)-(Event,_,_)``.
    package func send(_ event: Event, in state: inout MachineState, now: Duration) throws -> Step {
        try send(event, in: &state, now: now, rejectUnhandled: options.unhandledEvents == .reject)
    }

    /// Processes the event named `name` with an optional payload.
    public func send(_ name: String, payload: JSONValue = .null, in state: MachineState, now: Duration = .zero) throws
        -> Step
    {
        try send(Event(name, payload: payload), in: state, now: now)
    }

    /// The general `send` on a copy of `state` (see ``advance(_:in:now:rejectUnhandled:allowPrecomputed:)``),
    /// which becomes the step's state.
    func send(
        _ event: Event, in state: MachineState, now: Duration, rejectUnhandled: Bool, allowPrecomputed: Bool = true
    ) throws -> Step {
        var state = state
        let taken = try advance(
            event, in: &state, now: now, rejectUnhandled: rejectUnhandled, allowPrecomputed: allowPrecomputed)
        return Step(
            event: event, source: taken.source, target: state.configuration, microsteps: taken.microsteps,
            state: state, logs: taken.logs)
    }

    /// The general `send` in place (see ``advance(_:in:now:rejectUnhandled:allowPrecomputed:)``):
    /// the step holds a copy of the new state.
    func send(
        _ event: Event, in state: inout MachineState, now: Duration, rejectUnhandled: Bool,
        allowPrecomputed: Bool = true
    ) throws -> Step {
        let taken = try advance(
            event, in: &state, now: now, rejectUnhandled: rejectUnhandled, allowPrecomputed: allowPrecomputed)
        return Step(
            event: event, source: taken.source, target: state.configuration, microsteps: taken.microsteps,
            state: state, logs: taken.logs)
    }

    /// The one evaluation of an external event every `send` of an ``Event`` comes to: the outcome
    /// read from the table of precomputed outcomes when it holds one (`state` changed in place,
    /// the microsteps and the new configuration shared with the table), else a flat machine's
    /// transition known at compile time, else the SCXML algorithm. `allowPrecomputed` false
    /// (tests comparing with the algorithm) or a machine made by ``withoutPrecomputedSteps()``
    /// always runs the algorithm. `state` becomes the step's state (it is unchanged when the call
    /// throws); the rest of the step is returned, and the callers build the ``Step``: a step built
    /// here was copied whole once more on its way out (callgrind, Benchmarks/HISTORY.md,
    /// 2026-11-29).
    private func advance(
        _ event: Event, in state: inout MachineState, now: Duration, rejectUnhandled: Bool, allowPrecomputed: Bool
    ) throws -> (source: [String], microsteps: [Microstep], logs: [String]) {
        guard state.isStarted else { throw MachineError.notStarted }
        guard !state.isFinished else { throw MachineError.machineFinished(configuration: state.configuration) }
        let source = state.configuration
        let microsteps: [Microstep]
        var logs: [String] = []
        if allowPrecomputed && precomputesSteps,
            let precomputed = try precomputedMicrosteps(event, in: &state, rejectUnhandled: rejectUnhandled)
        {
            microsteps = precomputed
        } else if allowPrecomputed && precomputesSteps && chart.isFlat,
            let flat = flatMicrosteps(event, in: &state)
        {
            microsteps = flat
        } else {
            var evaluation = try Evaluation(
                chart: chart, state: state, microstepLimit: options.microstepLimit, now: now)
            if try !evaluation.process(event) {
                if rejectUnhandled, !evaluation.ignores(event) {
                    throw MachineError.invalidTransition(from: state.configuration, event: event.name)
                }
            }
            state = evaluation.state
            microsteps = evaluation.microsteps
            logs = evaluation.logs
        }
        return (source, microsteps, logs)
    }

    /// This machine with the table of precomputed outcomes and the flat machines' compile-time
    /// steps turned off: every `send` of an ``Event`` runs the SCXML algorithm (prepared events
    /// keep their own table). For tests that compare both (the same steps, records and errors).
    package func withoutPrecomputedSteps() -> Machine {
        var machine = self
        machine.precomputesSteps = false
        return machine
    }

    /// A flat machine's transition known at compile time, taken in `state` (changed in place):
    /// its microsteps, with no evaluation, and no allocation when the event has no payload and is
    /// named exactly as the transition's descriptor. `nil`, and `state` untouched, when the
    /// general algorithm must run (it gives the same result).
    private func flatMicrosteps(_ event: Event, in state: inout MachineState) -> [Microstep]? {
        guard event.payload.isNull, state.internalQueue.isEmpty, state.configuration.count == 1,
            let source = chart.index[state.configuration[0]]
        else { return nil }
        for position in chart.stateTransitions[source] {
            let transition = chart.transitions[position]
            guard transition.matches(event.name) else { continue }
            if let condition = transition.condition,
                !condition.holds(event: event, context: state.context, isActive: { $0 == source })
            {
                continue
            }
            guard let flat = chart.flatTransitions[position] else { return nil }
            var microsteps: [Microstep]? = nil
            for (descriptor, precomputed) in zip(transition.events, flat.microsteps) where descriptor == event.name {
                microsteps = precomputed
                break
            }
            if microsteps == nil {
                var microstep = flat.microsteps[0][0]
                microstep.event = event
                microsteps = [microstep]
            }
            if flat.exitsSource, !state.data.isEmpty { state.data[state.configuration[0]] = nil }
            state.configuration = flat.configuration
            return microsteps ?? []
        }
        return nil
    }

    /// Delivers the first pending send that is due at `now` (SCXML's external queue), as its own
    /// step; `nil` when none is due. An event nobody handles is dropped, as in SCXML.
    public func sendNextDue(in state: MachineState, now: Duration) throws -> Step? {
        guard let first = state.pendingSends.first, first.due <= now else { return nil }
        var remaining = state
        remaining.pendingSends.removeFirst()
        if remaining.isFinished {
            return Step(
                event: first.event, source: state.configuration, target: state.configuration,
                microsteps: [], state: remaining)
        }
        var step = try send(first.event, in: remaining, now: now, rejectUnhandled: false)
        step.source = state.configuration
        return step
    }

    // MARK: Direct moves (GKStateMachine)

    /// The states that `enter(_:)` may move to from `state`: the valid next states declared by the
    /// active states, innermost first, without duplicates.
    public func validNextStates(in state: MachineState) -> [String] {
        var result: [String] = []
        for id in state.configuration.reversed() {
            guard let position = chart.index[id], let next = chart.validNextStates[position] else { continue }
            for target in next where !result.contains(chart.ids[target]) { result.append(chart.ids[target]) }
        }
        return result
    }

    /// Whether `enter(id)` would succeed: before start any state may be entered; after, some active
    /// state must list `id` among its valid next states (GKStateMachine's `canEnterState`).
    public func canEnter(_ id: String, in state: MachineState) -> Bool {
        guard chart.index[id] != nil, !state.isFinished else { return false }
        if !state.isStarted { return true }
        return directSource(for: id, in: state) != nil
    }

    /// Moves directly to the state `id` (GKStateMachine's `enter(_:)`): an external transition from
    /// the innermost active state that lists `id` as a valid next state, recorded with the event
    /// name ``enterEventName`` and `data` as payload; `data` becomes the entered state's data. Before
    /// start, it starts the machine in `id` (the first entry, with no previous state).
    ///
    /// - Throws: ``MachineError/cannotEnter(from:to:)`` when `id` is not a valid next state,
    ///   ``MachineError/unknownState(_:)`` when there is no such state.
    public func enter(_ id: String, data: JSONValue = .null, in state: MachineState, now: Duration = .zero) throws
        -> Step
    {
        guard let target = chart.index[id] else { throw MachineError.unknownState(id) }
        if !state.isStarted {
            var step = try start(targets: [target], data: data, context: state.context, now: now)
            step.event = nil
            return step
        }
        guard !state.isFinished else { throw MachineError.machineFinished(configuration: state.configuration) }
        guard let source = directSource(for: id, in: state) else {
            throw MachineError.cannotEnter(from: state.configuration, to: id)
        }
        let event = Event(Self.enterEventName, payload: data)
        let transition = CompiledChart.Transition(
            source: source, index: -1, events: [Self.enterEventName], targets: [target],
            isInternal: false, condition: nil, actions: [], navigation: nil, ids: chart.ids,
            isHistory: chart.isHistory)
        var evaluation = try Evaluation(chart: chart, state: state, microstepLimit: options.microstepLimit, now: now)
        try evaluation.take(transition, event: event)
        let next = evaluation.state
        return Step(
            event: event, source: state.configuration, target: next.configuration,
            microsteps: evaluation.microsteps, state: next, logs: evaluation.logs)
    }

    private func directSource(for id: String, in state: MachineState) -> Int? {
        guard let target = chart.index[id] else { return nil }
        for active in state.configuration.reversed() {
            guard let position = chart.index[active], let next = chart.validNextStates[position] else { continue }
            if next.contains(target) { return position }
        }
        return nil
    }
}
