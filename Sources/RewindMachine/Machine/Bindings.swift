/// A guard's code: a Sendable predicate on the event (its payload) and the machine's context.
public typealias GuardPredicate = @Sendable (_ event: Event, _ context: JSONValue) -> Bool

/// A custom action's code: it may change the context and raise or send events. It must be
/// deterministic (a replay runs it again on the same inputs).
public typealias CustomAction = @Sendable (_ scope: inout ActionScope) throws -> Void

/// What a custom action sees and may change.
public struct ActionScope: Sendable {
    /// The event being processed (`nil` during the start step and eventless transitions).
    public let event: Event?
    /// The id of the state whose entry or exit runs the action, or the source of the transition.
    public let state: String?
    /// The machine's context; the action may change it.
    public var context: JSONValue
    /// Internal events raised by the action, processed before the next external event.
    public internal(set) var raised: [Event] = []
    /// Events sent to the external queue by the action, with their delays.
    public internal(set) var sent: [(event: Event, delay: Duration)] = []

    init(event: Event?, state: String?, context: JSONValue) {
        self.event = event
        self.state = state
        self.context = context
    }

    /// Raises an internal event (SCXML `<raise>`).
    public mutating func raise(_ event: Event) {
        raised.append(event)
    }

    /// Raises an internal event by name.
    public mutating func raise(_ name: String, payload: JSONValue = .null) {
        raised.append(Event(name, payload: payload))
    }

    /// Sends an event to the external queue, after `delay` on the interpreter's clock (SCXML
    /// `<send>`); a negative delay is none.
    public mutating func send(_ event: Event, after delay: Duration = .zero) {
        sent.append((event, delay))
    }

    /// Sends an event to the external queue, after `delayMilliseconds`.
    @available(
        *, deprecated, renamed: "send(_:after:)", message: "pass a Duration: send(event, after: .milliseconds(n))"
    )
    public mutating func send(_ event: Event, delayMilliseconds: Int64) {
        send(event, after: .milliseconds(delayMilliseconds))
    }
}

/// The code a definition refers to by name: guards and custom actions, bound when a
/// ``MachineDefinition`` is compiled into a ``Machine``.
public struct Bindings: Sendable {
    /// Guards by name (``GuardDefinition/named(_:)``).
    public var guards: [String: GuardPredicate]
    /// Custom actions by name (``ActionDefinition/custom(_:)``).
    public var actions: [String: CustomAction]

    /// Creates bindings.
    public init(guards: [String: GuardPredicate] = [:], actions: [String: CustomAction] = [:]) {
        self.guards = guards
        self.actions = actions
    }
}
