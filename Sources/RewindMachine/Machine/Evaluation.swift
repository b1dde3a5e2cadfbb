/// One macrostep's worth of the W3C SCXML algorithm (Appendix D) over a ``CompiledChart``:
/// loaded from a ``MachineState``, run, and written back. Nothing outside it changes until the
/// resulting ``Step`` is committed.
struct Evaluation {
    let chart: CompiledChart
    let microstepLimit: Int
    let now: Duration

    var active: StateSet
    var history: [Int: [Int]]
    /// The history memory as loaded, returned as is when no history was recorded.
    private let loadedHistory: [String: [String]]
    private var historyChanged = false
    var context: JSONValue
    var data: [String: JSONValue]
    var internalQueue: [Event]
    var pendingSends: [ScheduledEvent]
    var isFinished: Bool

    var microsteps: [Microstep] = []
    var logs: [String] = []
    private var microstepCount = 0
    /// The event being processed and the data given to the explicit targets of the transitions.
    private var currentEvent: Event?
    private var targetData: JSONValue = .null

    /// Whether the evaluation is a probe made while building a ``PreparedTable``: it runs no
    /// code of the app (named guards, actions), notes instead that the outcome depends on it.
    var isProbe = false
    /// Set by a probe when the outcome depends on more than the configuration and the event's
    /// name: a named guard, an action (custom or not), or the history memory (read or written).
    private(set) var probeHitDynamicContent = false

    init(chart: CompiledChart, state: MachineState, microstepLimit: Int, now: Duration) throws {
        self.chart = chart
        self.microstepLimit = microstepLimit
        self.now = now
        var active = StateSet(count: chart.count)
        for id in state.configuration {
            guard let position = chart.index[id] else { throw MachineError.unknownState(id) }
            active[position] = true
        }
        if !state.configuration.isEmpty { active[0] = true }
        self.active = active
        self.configuration = state.configuration
        var history: [Int: [Int]] = [:]
        for (id, remembered) in state.history {
            guard let position = chart.index[id] else { throw MachineError.unknownState(id) }
            let owner = chart.parent[position]
            history[position] = try remembered.map {
                guard let state = chart.index[$0] else { throw MachineError.unknownState($0) }
                // What the machine records is inside the history's parent and never a history
                // pseudo-state; anything else (a restored state that was altered) could make
                // entering the history recurse without end.
                if case .history = chart.kind[position] {
                    guard chart.isDescendant(state, of: owner) else {
                        throw MachineError.invalidHistory(history: id, remembered: $0)
                    }
                    if case .history = chart.kind[state] {
                        throw MachineError.invalidHistory(history: id, remembered: $0)
                    }
                }
                return state
            }
        }
        self.history = history
        self.loadedHistory = state.history
        self.context = state.context
        self.data = state.data
        self.internalQueue = state.internalQueue
        self.pendingSends = state.pendingSends
        self.isFinished = state.isFinished
    }

    // MARK: Results

    /// The active states' ids in document order, kept up to date after every microstep.
    private(set) var configuration: [String]

    private func computeConfiguration() -> [String] {
        var ids: [String] = []
        ids.reserveCapacity(configuration.count + 2)
        for state in 1..<chart.count where active[state] { ids.append(chart.ids[state]) }
        return ids
    }

    var state: MachineState {
        var remembered = loadedHistory
        if historyChanged {
            remembered = [:]
            for (history, states) in self.history {
                remembered[chart.ids[history]] = states.map { chart.ids[$0] }
            }
        }
        return MachineState(
            configuration: configuration, history: remembered, context: context, data: data,
            internalQueue: internalQueue, pendingSends: pendingSends, isFinished: isFinished)
    }

    // MARK: Entry points

    /// Enters the initial configuration (or `targets`) and runs to completion.
    mutating func start(targets: [Int], data payload: JSONValue) throws {
        active[0] = true
        let initial = CompiledChart.Transition(
            source: 0, index: -1, events: [], targets: targets, isInternal: false, condition: nil,
            actions: [], navigation: nil, ids: chart.ids, isHistory: chart.isHistory)
        targetData = payload
        try microstep([initial], event: nil)
        targetData = .null
        try runToCompletion(after: nil)
    }

    /// Selects the external event's transitions; `false` when none is enabled.
    mutating func process(_ event: Event) throws -> Bool {
        let enabled = selectTransitions(for: event)
        if enabled.isEmpty { return false }
        targetData = event.payload
        try microstep(enabled.map { chart.transitions[$0] }, event: event)
        targetData = .null
        try runToCompletion(after: event)
        return true
    }

    /// Takes a synthetic external transition (GKStateMachine's `enter`).
    mutating func take(_ transition: CompiledChart.Transition, event: Event) throws {
        targetData = event.payload
        try microstep([transition], event: event)
        targetData = .null
        try runToCompletion(after: event)
    }

    /// Whether some active state explicitly ignores the event.
    func ignores(_ event: Event) -> Bool {
        for state in 1..<chart.count where active[state] {
            if chart.ignoredEvents[state].contains(where: { event.matches($0) }) { return true }
        }
        return false
    }

    // MARK: Macrostep

    private mutating func runToCompletion(after event: Event?) throws {
        while !isFinished {
            var enabled = selectTransitions(for: nil)
            var selectedEvent: Event? = nil
            if enabled.isEmpty {
                guard !internalQueue.isEmpty else { break }
                let raised = internalQueue.removeFirst()
                selectedEvent = raised
                enabled = selectTransitions(for: raised)
            }
            if !enabled.isEmpty {
                microstepCount += 1
                if microstepCount > microstepLimit {
                    throw MachineError.eventLoopLimitExceeded(
                        limit: microstepLimit, event: event?.name, configuration: configuration)
                }
                try microstep(enabled.map { chart.transitions[$0] }, event: selectedEvent)
            }
        }
    }

    // MARK: Selection

    private func matches(_ transition: CompiledChart.Transition, _ event: Event?) -> Bool {
        guard let event else { return transition.events.isEmpty }
        return transition.matches(event.name)
    }

    private func holds(_ condition: CompiledChart.Guard, _ event: Event?) -> Bool {
        condition.holds(event: event ?? Event(""), context: context) { active[$0] }
    }

    /// A guard's value; in a probe, a guard that runs the app's code is not evaluated (the
    /// outcome is marked dynamic), while `In(state)` guards, which depend on the configuration
    /// only, are.
    private mutating func evaluate(_ condition: CompiledChart.Guard, _ event: Event?) -> Bool {
        if isProbe, condition.callsCode {
            probeHitDynamicContent = true
            return false
        }
        return holds(condition, event)
    }

    private mutating func selectTransitions(for event: Event?) -> [Int] {
        var enabled: [Int] = []
        for atomic in 1..<chart.count where active[atomic] && chart.isAtomic(atomic) {
            var state = atomic
            search: while state > 0 {
                for position in chart.stateTransitions[state] {
                    let transition = chart.transitions[position]
                    if matches(transition, event), transition.condition.map({ evaluate($0, event) }) ?? true {
                        if !enabled.contains(position) { enabled.append(position) }
                        break search
                    }
                }
                state = chart.parent[state]
            }
        }
        if enabled.count < 2 { return enabled }
        return removeConflictingTransitions(enabled)
    }

    private func removeConflictingTransitions(_ enabled: [Int]) -> [Int] {
        var filtered: [Int] = []
        for first in enabled {
            let firstExit = exitSet(chart.transitions[first])
            var preempted = false
            var toRemove: [Int] = []
            for second in filtered {
                let secondExit = exitSet(chart.transitions[second])
                if firstExit.contains(where: secondExit.contains) {
                    if chart.isDescendant(chart.transitions[first].source, of: chart.transitions[second].source) {
                        toRemove.append(second)
                    } else {
                        preempted = true
                        break
                    }
                }
            }
            if !preempted {
                filtered.removeAll(where: toRemove.contains)
                filtered.append(first)
            }
        }
        return filtered
    }

    // MARK: Transition geometry

    private func exitSet(_ transition: CompiledChart.Transition) -> [Int] {
        guard !transition.targets.isEmpty, let domain = transitionDomain(transition) else { return [] }
        var states: [Int] = []
        for state in (domain + 1)..<chart.subtreeEnd[domain] where active[state] { states.append(state) }
        return states
    }

    private func effectiveTargets(_ transition: CompiledChart.Transition) -> [Int] {
        if !transition.targetsHistory { return transition.targets }
        var targets: [Int] = []
        func add(_ state: Int) {
            if case .history = chart.kind[state] {
                if let remembered = history[state] {
                    for target in remembered where !targets.contains(target) { targets.append(target) }
                } else {
                    chart.initialTargets[state].forEach(add)
                }
            } else if !targets.contains(state) {
                targets.append(state)
            }
        }
        transition.targets.forEach(add)
        return targets
    }

    private func transitionDomain(_ transition: CompiledChart.Transition) -> Int? {
        let targets = effectiveTargets(transition)
        if targets.isEmpty { return nil }
        let source = transition.source
        if transition.isInternal, chart.kind[source] == .compound,
            targets.allSatisfy({ chart.isDescendant($0, of: source) })
        {
            return source
        }
        return leastCommonCompoundAncestor(source, targets)
    }

    private func leastCommonCompoundAncestor(_ first: Int, _ others: [Int]) -> Int {
        var ancestor = chart.parent[first]
        while ancestor > 0 {
            if chart.isCompoundOrRoot(ancestor), others.allSatisfy({ chart.isDescendant($0, of: ancestor) }) {
                return ancestor
            }
            ancestor = chart.parent[ancestor]
        }
        return 0
    }

    // MARK: Microstep

    private mutating func microstep(_ transitions: [CompiledChart.Transition], event: Event?) throws {
        currentEvent = event
        if isProbe, transitions.contains(where: \.targetsHistory) { probeHitDynamicContent = true }
        let source = configuration

        // Exit.
        var exitMarks = StateSet(count: chart.count)
        for transition in transitions where !transition.targets.isEmpty {
            guard let domain = transitionDomain(transition) else { continue }
            for state in (domain + 1)..<chart.subtreeEnd[domain] where active[state] { exitMarks[state] = true }
        }
        let exitsAny = !exitMarks.isEmpty
        var exited: [String] = []
        for state in stride(from: chart.count - 1, through: 1, by: -1) where exitsAny && exitMarks[state] {
            for historyState in chart.historyChildren[state] {
                var remembered: [Int] = []
                if case .history(deep: true) = chart.kind[historyState] {
                    for descendant in (state + 1)..<chart.subtreeEnd[state]
                    where active[descendant] && chart.isAtomic(descendant) {
                        remembered.append(descendant)
                    }
                } else {
                    for child in chart.children[state] where active[child] { remembered.append(child) }
                }
                history[historyState] = remembered
                historyChanged = true
            }
        }
        for state in stride(from: chart.count - 1, through: 1, by: -1) where exitsAny && exitMarks[state] {
            try run(chart.onExit[state], in: state)
            active[state] = false
            data[chart.ids[state]] = nil
            exited.append(chart.ids[state])
        }

        // Transition content.
        for transition in transitions {
            try run(transition.actions, in: transition.source)
        }

        // Entry.
        var entry = EntrySet(count: chart.count)
        for transition in transitions {
            for target in transition.targets { addDescendants(of: target, to: &entry) }
            let domain = transitionDomain(transition) ?? 0
            for target in effectiveTargets(transition) { addAncestors(of: target, upTo: domain, to: &entry) }
        }
        if isProbe, entry.usesHistory || historyChanged { probeHitDynamicContent = true }
        var entered: [String] = []
        var enteredData: [String: JSONValue] = [:]
        let explicitTargets = targetData.isNull ? [] : transitions.flatMap(\.targets)
        for state in 1..<chart.count where entry.states[state] {
            active[state] = true
            let id = chart.ids[state]
            entered.append(id)
            if !targetData.isNull, explicitTargets.contains(state) {
                data[id] = targetData
                enteredData[id] = targetData
            }
            try run(chart.onEntry[state], in: state)
            if entry.defaultEntry[state] { try run(chart.initialActions[state], in: state) }
            if let content = entry.defaultHistoryContent[state] { try run(content, in: state) }
            if chart.kind[state] == .final {
                let owner = chart.parent[state]
                if owner == 0 {
                    isFinished = true
                } else {
                    internalQueue.append(Event("done.state.\(chart.ids[owner])"))
                    let grandparent = chart.parent[owner]
                    if grandparent > 0, chart.kind[grandparent] == .parallel,
                        chart.children[grandparent].allSatisfy(isInFinalState)
                    {
                        internalQueue.append(Event("done.state.\(chart.ids[grandparent])"))
                    }
                }
            }
        }

        configuration = computeConfiguration()
        microsteps.append(
            Microstep(
                event: event,
                transitions: transitions.map(\.reference),
                source: source, target: configuration, exited: exited, entered: entered,
                navigation: navigation(of: transitions, entered: entry, isFirstEntry: source.isEmpty), data: enteredData
            ))
        currentEvent = nil
    }

    private func isInFinalState(_ state: Int) -> Bool {
        switch chart.kind[state] {
        case .compound:
            return chart.children[state].contains { active[$0] && chart.kind[$0] == .final }
        case .parallel:
            return chart.children[state].allSatisfy(isInFinalState)
        default:
            return false
        }
    }

    /// Navigation of a microstep: each transition's own declaration (in document order), then the
    /// declarations of the entered states that are not targets of such a transition, in entry order.
    /// On the first entry the stack is empty, so a state declared to pop (to the root, to a screen)
    /// becomes the root instead: `setRoot(state)`.
    private func navigation(
        of transitions: [CompiledChart.Transition], entered entry: EntrySet, isFirstEntry: Bool
    ) -> [NavigationOperation] {
        var operations: [NavigationOperation] = []
        var overridden: [Int] = []
        for transition in transitions {
            guard let declaration = transition.navigation else { continue }
            let screen = transition.targets.first.map { chart.ids[$0] } ?? chart.ids[transition.source]
            operations.append(Self.resolve(declaration, screen: screen))
            overridden.append(contentsOf: transition.targets)
        }
        for state in 1..<chart.count where entry.states[state] && !overridden.contains(state) {
            if let declaration = chart.navigation[state] {
                let operation = Self.resolve(declaration, screen: chart.ids[state])
                switch operation {
                case .pop, .popToRoot, .popTo:
                    operations.append(isFirstEntry ? .setRoot(chart.ids[state]) : operation)
                default:
                    operations.append(operation)
                }
            }
        }
        return operations
    }

    static func resolve(_ declaration: NavigationDeclaration, screen: String) -> NavigationOperation {
        switch declaration {
        case .push(let named): return .push(named ?? screen)
        case .replace(let named): return .replace(named ?? screen)
        case .setRoot(let named): return .setRoot(named ?? screen)
        case .pop: return .pop
        case .popToRoot: return .popToRoot
        case .popTo(let named): return .popTo(named)
        }
    }

    // MARK: Entry set

    private struct EntrySet {
        var states: StateSet
        var defaultEntry: StateSet
        var defaultHistoryContent: [Int: [CompiledChart.Action]] = [:]
        /// Whether a history pseudo-state was entered (its memory or its default was read).
        var usesHistory = false

        init(count: Int) {
            states = StateSet(count: count)
            defaultEntry = StateSet(count: count)
        }
    }

    private func addDescendants(of state: Int, to entry: inout EntrySet) {
        if case .history = chart.kind[state] {
            entry.usesHistory = true
            let owner = chart.parent[state]
            if let remembered = history[state] {
                for target in remembered { addDescendants(of: target, to: &entry) }
                for target in remembered { addAncestors(of: target, upTo: owner, to: &entry) }
            } else {
                entry.defaultHistoryContent[owner] = chart.initialActions[state]
                for target in chart.initialTargets[state] { addDescendants(of: target, to: &entry) }
                for target in chart.initialTargets[state] { addAncestors(of: target, upTo: owner, to: &entry) }
            }
            return
        }
        entry.states[state] = true
        switch chart.kind[state] {
        case .compound:
            entry.defaultEntry[state] = true
            for target in chart.initialTargets[state] { addDescendants(of: target, to: &entry) }
            for target in chart.initialTargets[state] { addAncestors(of: target, upTo: state, to: &entry) }
        case .parallel:
            for child in chart.children[state] where !hasDescendant(in: entry, of: child) {
                addDescendants(of: child, to: &entry)
            }
        default:
            break
        }
    }

    private func addAncestors(of state: Int, upTo ancestor: Int, to entry: inout EntrySet) {
        var current = chart.parent[state]
        while current != ancestor, current > 0 {
            entry.states[current] = true
            if chart.kind[current] == .parallel {
                for child in chart.children[current] where !hasDescendant(in: entry, of: child) {
                    addDescendants(of: child, to: &entry)
                }
            }
            current = chart.parent[current]
        }
    }

    private func hasDescendant(in entry: EntrySet, of state: Int) -> Bool {
        for candidate in state..<chart.subtreeEnd[state] where entry.states[candidate] { return true }
        return false
    }

    // MARK: Executable content

    private mutating func run(_ actions: [CompiledChart.Action], in state: Int) throws {
        if isProbe {
            if !actions.isEmpty { probeHitDynamicContent = true }
            return
        }
        for action in actions {
            switch action {
            case .raise(let event):
                internalQueue.append(event)
            case .send(let event, let delay, let id):
                schedule(event, delay: delay, id: id)
            case .cancel(let id):
                pendingSends.removeAll { $0.sendID == id }
            case .log(let line):
                logs.append(line)
            case .custom(let name, let code):
                var scope = ActionScope(event: currentEvent, state: chart.ids[state], context: context)
                do {
                    try code(&scope)
                } catch {
                    throw MachineError.actionFailed(action: name, state: chart.ids[state], cause: ErrorCause(error))
                }
                context = scope.context
                internalQueue.append(contentsOf: scope.raised)
                for (event, delay) in scope.sent { schedule(event, delay: delay, id: nil) }
            case .conditional(let branches):
                for branch in branches where branch.condition.map({ holds($0, currentEvent) }) ?? true {
                    try run(branch.actions, in: state)
                    break
                }
            }
        }
    }

    private mutating func schedule(_ event: Event, delay: Duration, id: String?) {
        // A negative delay is none. Due times stay within the 64-bit milliseconds the state's
        // JSON form holds: a send due past its end is due at its end (the terms are capped first,
        // so the sum cannot overflow `Duration`).
        let first = Duration.milliseconds(Int64.min)
        let last = Duration.milliseconds(Int64.max)
        let due = min(max(first, min(now, last)) + min(max(.zero, delay), last), last)
        let position = pendingSends.firstIndex { $0.due > due } ?? pendingSends.endIndex
        pendingSends.insert(ScheduledEvent(event: event, due: due, sendID: id), at: position)
    }
}
