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
    }

    enum Action: Sendable {
        case raise(Event)
        case send(Event, delayMilliseconds: Int64, id: String?)
        case cancel(String)
        case log(String)
        case custom(String, CustomAction)
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
