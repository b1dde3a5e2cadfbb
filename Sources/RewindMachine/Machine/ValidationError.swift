/// A problem that makes a ``MachineDefinition`` unusable, naming the state (and transition) at fault.
public struct ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Problem: Hashable, Sendable {
        /// A transition, initial attribute, history default or valid-next-state names no state.
        case unknownTarget(String)
        /// Two states share an id.
        case duplicateID
        /// A compound state's initial child cannot be resolved (unknown, or not a descendant).
        case unresolvableInitial([String])
        /// A history pseudo-state is not inside a compound or parallel state.
        case historyOutsideCompoundState
        /// A final or history state has children, or a history state has events/transitions.
        case invalidChildren
        /// A final state has outgoing transitions.
        case transitionFromFinalState
        /// A named guard has no binding.
        case unboundGuard(String)
        /// A named custom action has no binding.
        case unboundAction(String)
        /// A history default transition targets a state outside the history's parent.
        case historyDefaultOutsideParent(String)
        /// A history pseudo-state's default entry (its own, or its parent's initial when it has
        /// none) leads back to it through history pseudo-states: entering it would never end.
        case historyDefaultLoop
        /// An empty state id.
        case emptyID
        /// A condition (`In('id')`, ``GuardDefinition/inState(_:)``) names a state that does not
        /// exist.
        case unknownStateInCondition(String)
    }

    /// The id of the state at fault (`""` for the machine's own `initial`).
    public var state: String
    /// The index of the transition at fault within the state's transitions, when it is one.
    public var transition: Int?
    /// What is wrong.
    public var problem: Problem

    /// Creates a validation error.
    public init(state: String, transition: Int? = nil, problem: Problem) {
        self.state = state
        self.transition = transition
        self.problem = problem
    }

    /// Names the problem and where it is.
    public var description: String {
        let place = state.isEmpty ? "machine" : "state '\(state)'"
        let location = transition.map { "\(place), transition #\($0)" } ?? place
        switch problem {
        case .unknownTarget(let id): return "\(location): unknown target '\(id)'"
        case .duplicateID: return "\(location): duplicate state id"
        case .unresolvableInitial(let ids):
            return "\(location): initial [\(ids.joined(separator: ", "))] is not a descendant of the compound state"
        case .historyOutsideCompoundState: return "\(location): history state outside a compound or parallel state"
        case .invalidChildren: return "\(location): a final or history state cannot have children"
        case .transitionFromFinalState: return "\(location): a final state cannot have transitions"
        case .unboundGuard(let name): return "\(location): guard '\(name)' has no binding"
        case .unboundAction(let name): return "\(location): action '\(name)' has no binding"
        case .historyDefaultOutsideParent(let id):
            return "\(location): history default target '\(id)' is not inside the history's parent"
        case .historyDefaultLoop:
            return "\(location): the history's default entry leads back to the history itself"
        case .emptyID: return "\(location): empty state id"
        case .unknownStateInCondition(let id): return "\(location): the condition In('\(id)') names no state"
        }
    }
}
