/// The indexed form of a ``MachineDefinition`` that evaluation works on: states are integers in
/// document (pre-)order, so "is a descendant of" is a range check and "document order" is integer
/// order; names are looked up once per step.
final class CompiledChart: Sendable {
    enum NodeKind: Sendable, Equatable {
        case root, atomic, compound, parallel, final
        case history(deep: Bool)
    }

    indirect enum Guard: Sendable {
        case named(String, GuardPredicate)
        case inState(Int)
        case not(Guard)
        case all([Guard])
        case any([Guard])

        /// Whether evaluating the guard may call the app's code (a named predicate); `false` when
        /// it depends on the active configuration only.
        var callsCode: Bool {
            switch self {
            case .named: return true
            case .inState: return false
            case .not(let inner): return inner.callsCode
            case .all(let inner), .any(let inner): return inner.contains { $0.callsCode }
            }
        }

        func holds(event: Event, context: JSONValue, isActive: (Int) -> Bool) -> Bool {
            switch self {
            case .named(_, let predicate): return predicate(event, context)
            case .inState(let state): return isActive(state)
            case .not(let inner): return !inner.holds(event: event, context: context, isActive: isActive)
            case .all(let inner):
                return inner.allSatisfy { $0.holds(event: event, context: context, isActive: isActive) }
            case .any(let inner): return inner.contains { $0.holds(event: event, context: context, isActive: isActive) }
            }
        }
    }

    indirect enum Action: Sendable {
        // `indirect`: `conditional` nests actions. Without it (the nesting being through
        // arrays) the Swift 6 toolchain on Linux built code that crashed in a reference-count
        // decrement (tests of this module, run in parallel); keep it, with `ActionDefinition`'s.

        case raise(Event)
        case send(Event, delay: Duration, id: String?)
        case cancel(String)
        case log(String)
        case custom(String, CustomAction)
        /// `<if>`/`<elseif>`/`<else>`: the branches in document order, `nil` for `<else>`.
        case conditional([(condition: Guard?, actions: [Action])])
    }

    struct Transition: Sendable {
        /// The source state, and the index among its transitions (`-1` when synthetic).
        var source: Int
        var index: Int
        /// Event descriptors, normalised (no trailing `.*`); empty when eventless.
        var events: [String]
        var matchesEveryEvent: Bool
        var targets: [Int]
        var isInternal: Bool
        var condition: Guard?
        var actions: [Action]
        var navigation: NavigationDeclaration?
        /// Whether a target is a history pseudo-state (its effective targets then vary).
        var targetsHistory: Bool
        /// How the transition is named in a ``Microstep``.
        var reference: TransitionReference

        init(
            source: Int, index: Int, events: [String], targets: [Int], isInternal: Bool,
            condition: Guard?, actions: [Action], navigation: NavigationDeclaration?,
            ids: [String], isHistory: (Int) -> Bool
        ) {
            self.source = source
            self.index = index
            self.events = events
            self.matchesEveryEvent = events.contains("*")
            self.targets = targets
            self.isInternal = isInternal
            self.condition = condition
            self.actions = actions
            self.navigation = navigation
            self.targetsHistory = targets.contains(where: isHistory)
            self.reference = TransitionReference(source: ids[source], index: index, targets: targets.map { ids[$0] })
        }

        /// Whether the (non-eventless) transition matches the event named `name`: descriptors are
        /// normalised, so a descriptor matches itself and its dot-separated extensions.
        @inline(__always) func matches(_ name: String) -> Bool {
            if events.isEmpty { return false }
            if matchesEveryEvent { return true }
            for descriptor in events {
                if name == descriptor { return true }
                let length = descriptor.utf8.count
                if name.utf8.count > length, name.hasPrefix(descriptor),
                    name.utf8[name.utf8.index(name.utf8.startIndex, offsetBy: length)] == UInt8(ascii: ".")
                {
                    return true
                }
            }
            return false
        }
    }

    /// A transition of a flat machine (only top-level atomic states, no eventless transitions)
    /// without actions: its step is known at compile time, so taking it allocates nothing.
    struct FlatTransition: Sendable {
        /// The configuration after the transition (the target, or the source when targetless).
        var configuration: [String]
        /// Whether the source is exited (its data is then dropped).
        var exitsSource: Bool
        /// For each of the transition's descriptors, the microsteps of a step on an event with
        /// exactly that name and no payload.
        var microsteps: [[Microstep]]
    }

    let ids: [String]
    let index: [String: Int]
    let parent: [Int]
    /// Child states that are not history pseudo-states, in document order.
    let children: [[Int]]
    let historyChildren: [[Int]]
    let kind: [NodeKind]
    /// Descendants of `s` are exactly the indices in `s + 1 ..< subtreeEnd[s]`.
    let subtreeEnd: [Int]
    let initialTargets: [[Int]]
    let initialActions: [[Action]]
    let transitions: [Transition]
    let stateTransitions: [[Int]]
    let onEntry: [[Action]]
    let onExit: [[Action]]
    let navigation: [NavigationDeclaration?]
    let validNextStates: [[Int]?]
    let ignoredEvents: [[String]]
    /// Whether every state is a top-level atomic state and no transition is eventless.
    let isFlat: Bool
    /// For each transition, its precomputed step when the machine is flat and it has no actions.
    let flatTransitions: [FlatTransition?]

    var count: Int { ids.count }

    @inline(__always) func isDescendant(_ state: Int, of ancestor: Int) -> Bool {
        state > ancestor && state < subtreeEnd[ancestor]
    }

    @inline(__always) func isAtomic(_ state: Int) -> Bool {
        switch kind[state] {
        case .atomic, .final: return true
        default: return false
        }
    }

    @inline(__always) func isHistory(_ state: Int) -> Bool {
        if case .history = kind[state] { return true }
        return false
    }

    @inline(__always) func isCompoundOrRoot(_ state: Int) -> Bool {
        switch kind[state] {
        case .compound, .root: return true
        default: return false
        }
    }

    init(
        ids: [String], index: [String: Int], parent: [Int], children: [[Int]],
        historyChildren: [[Int]], kind: [NodeKind], subtreeEnd: [Int], initialTargets: [[Int]],
        initialActions: [[Action]], transitions: [Transition], stateTransitions: [[Int]],
        onEntry: [[Action]], onExit: [[Action]], navigation: [NavigationDeclaration?],
        validNextStates: [[Int]?], ignoredEvents: [[String]]
    ) {
        let isFlat =
            (1..<ids.count).allSatisfy { parent[$0] == 0 && kind[$0] == .atomic }
            && transitions.allSatisfy { !$0.events.isEmpty }
        self.isFlat = isFlat
        self.flatTransitions = transitions.map { transition in
            guard isFlat, transition.actions.isEmpty, transition.targets.count <= 1,
                !(transition.targets.isEmpty && transition.navigation != nil)
            else { return nil }
            let source = ids[transition.source]
            var exited: [String] = []
            var entered: [String] = []
            var configuration = [source]
            var operations: [NavigationOperation] = []
            if let target = transition.targets.first {
                guard onExit[transition.source].isEmpty, onEntry[target].isEmpty else { return nil }
                exited = [source]
                entered = [ids[target]]
                configuration = [ids[target]]
                if let declaration = transition.navigation ?? navigation[target] {
                    operations = [Evaluation.resolve(declaration, screen: ids[target])]
                }
            }
            let reference = [
                TransitionReference(
                    source: source, index: transition.index, targets: transition.targets.map { ids[$0] })
            ]
            return FlatTransition(
                configuration: configuration, exitsSource: !exited.isEmpty,
                microsteps: transition.events.map { descriptor in
                    [
                        Microstep(
                            event: Event(descriptor), transitions: reference, source: [source],
                            target: configuration, exited: exited, entered: entered,
                            navigation: operations, data: [:])
                    ]
                })
        }
        self.ids = ids
        self.index = index
        self.parent = parent
        self.children = children
        self.historyChildren = historyChildren
        self.kind = kind
        self.subtreeEnd = subtreeEnd
        self.initialTargets = initialTargets
        self.initialActions = initialActions
        self.transitions = transitions
        self.stateTransitions = stateTransitions
        self.onEntry = onEntry
        self.onExit = onExit
        self.navigation = navigation
        self.validNextStates = validNextStates
        self.ignoredEvents = ignoredEvents
    }
}
