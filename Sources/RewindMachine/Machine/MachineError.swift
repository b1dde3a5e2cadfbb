/// Why a machine could not be built or could not take a step.
///
/// Every case carries what a caller needs to react: the configuration the machine was in, the
/// event it refused, the state or transition a definition got wrong.
public enum MachineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No transition of the active states handles `event`, and no active state ignores it. The
    /// machine's state is unchanged.
    case invalidTransition(from: [String], event: String)
    /// `enter(_:)` asked for a state that no active state lists among its valid next states.
    case cannotEnter(from: [String], to: String)
    /// A chain of eventless transitions and raised events went on for more than `limit`
    /// microsteps inside one macrostep: the machine loops. The state is unchanged.
    case eventLoopLimitExceeded(limit: Int, event: String?, configuration: [String])
    /// The machine reached a top-level final state and takes no more events.
    case machineFinished(configuration: [String])
    /// The machine was asked to step before ``Machine/start(context:now:)``.
    case notStarted
    /// A state id given to the machine (or found in a restored state) is not one of its states.
    case unknownState(String)
    /// A custom action threw; the step is abandoned and the state unchanged.
    case actionFailed(action: String, state: String?, message: String)
    /// The definition is invalid; the list names every problem found.
    case invalidDefinition([ValidationError])

    /// A readable account of what failed and where.
    public var description: String {
        switch self {
        case .invalidTransition(let from, let event):
            return "invalid transition: no transition of [\(from.joined(separator: ", "))] handles event '\(event)'"
        case .cannotEnter(let from, let to):
            return "cannot enter '\(to)' from [\(from.joined(separator: ", "))]: it is not a valid next state"
        case .eventLoopLimitExceeded(let limit, let event, let configuration):
            return "event loop limit exceeded: more than \(limit) microsteps after event '\(event ?? "(start)")' "
                + "(in [\(configuration.joined(separator: ", "))]); eventless transitions or raised events loop"
        case .machineFinished(let configuration):
            return "the machine is finished (in [\(configuration.joined(separator: ", "))]) and takes no more events"
        case .notStarted:
            return "the machine has not been started"
        case .unknownState(let id):
            return "unknown state '\(id)'"
        case .actionFailed(let action, let state, let message):
            return "action '\(action)'\(state.map { " in state '\($0)'" } ?? "") failed: \(message)"
        case .invalidDefinition(let errors):
            return "invalid machine definition:\n" + errors.map { "  - \($0)" }.joined(separator: "\n")
        }
    }
}

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
        /// An empty state id.
        case emptyID
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
        case .emptyID: return "\(location): empty state id"
        }
    }
}

/// Something legal but probably unintended in a definition: returned by ``Machine/warnings``,
/// never thrown.
public struct ValidationWarning: Hashable, Sendable, CustomStringConvertible {
    /// What looks wrong.
    public enum Problem: Hashable, Sendable {
        /// No sequence of transitions from the initial configuration reaches the state.
        case unreachableState
        /// An earlier transition of the same state (or an unguarded eventless one) always wins.
        case transitionNeverTaken
    }

    /// The state concerned.
    public var state: String
    /// The transition concerned, by index within the state's transitions.
    public var transition: Int?
    /// What looks wrong.
    public var problem: Problem

    /// Creates a warning.
    public init(state: String, transition: Int? = nil, problem: Problem) {
        self.state = state
        self.transition = transition
        self.problem = problem
    }

    /// Names the problem and where it is.
    public var description: String {
        switch problem {
        case .unreachableState: return "state '\(state)' is unreachable"
        case .transitionNeverTaken:
            return "state '\(state)', transition #\(transition ?? 0) can never be taken (an earlier transition always wins)"
        }
    }
}
