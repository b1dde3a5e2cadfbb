/// Something legal but probably unintended in a definition: returned by ``Machine/warnings``,
/// never thrown.
public struct ValidationWarning: Hashable, Sendable, CustomStringConvertible {
    /// What looks wrong.
    public enum Problem: Hashable, Sendable {
        /// No sequence of transitions from the initial configuration reaches the state.
        case unreachableState
        /// An earlier transition of the same state (or an unguarded eventless one) always wins.
        case transitionNeverTaken
        /// A `<send>` to a target the machine cannot reach or of a type it does not support
        /// (``ActionDefinition/undeliverableSend(event:target:type:delay:id:)``): each
        /// time it runs it sends nothing and raises `raises` (`error.execution` or
        /// `error.communication`) instead.
        case undeliverableSend(event: String, target: String?, type: String?, raises: String)
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
            return
                "state '\(state)', transition #\(transition ?? 0) can never be taken (an earlier transition always wins)"
        case .undeliverableSend(let event, let target, let type, let raises):
            var what: [String] = []
            if let target { what.append("target '\(target)'") }
            if let type { what.append("type '\(type)'") }
            return "state '\(state)': <send event=\"\(event)\"> cannot be delivered (\(what.joined(separator: ", "))); "
                + "it raises \(raises) when it runs"
        }
    }
}
