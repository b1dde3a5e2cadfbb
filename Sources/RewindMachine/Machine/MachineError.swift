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
    /// A restored state's memory of history pseudo-state `history` holds `remembered`, which is
    /// not a state inside the history's parent (or is itself a history pseudo-state): the machine
    /// never records such a memory, so the state was altered.
    case invalidHistory(history: String, remembered: String)
    /// A custom action threw; the step is abandoned and the state unchanged. `cause` is the error
    /// the action threw (`cause.error as? MyAppError`).
    case actionFailed(action: String, state: String?, cause: ErrorCause)
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
        case .invalidHistory(let history, let remembered):
            return
                "invalid history memory: '\(history)' remembers '\(remembered)', which is not a state inside its parent"
        case .actionFailed(let action, let state, let cause):
            return "action '\(action)'\(state.map { " in state '\($0)'" } ?? "") failed: \(cause)"
        case .invalidDefinition(let errors):
            return "invalid machine definition:\n" + errors.map { "  - \($0)" }.joined(separator: "\n")
        }
    }
}
