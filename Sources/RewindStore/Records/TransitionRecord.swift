/// One entry of the durable log: a transition of a session, with its place in the global log and
/// in its session.
public struct TransitionRecord: Sendable, Hashable, Codable {
    /// The global sequence number (1-based, gap-free across the whole store).
    public var sequence: UInt64
    /// The session.
    public var session: SessionID
    /// The version within the session (1, 2, 3 …).
    public var version: UInt64
    /// The wall-clock time of the transition.
    public var timestamp: Timestamp
    /// The machine's name.
    public var machine: String
    /// The machine definition's content version.
    public var definition: String
    /// The event that caused the transition.
    public var event: String
    /// The state configuration before.
    public var source: [String]
    /// The state configuration after.
    public var target: [String]
    /// What the transition does to the navigation stack, in order (a macrostep may do several things).
    public var navigation: [NavigationOperation]
    /// The event's payload bytes.
    public var payload: [UInt8]
    /// The target state's data bytes.
    public var stateData: [UInt8]
    /// Where the record came from when its session is a fork.
    public var origin: RecordOrigin?

    /// Creates a record from its fields.
    public init(
        sequence: UInt64, session: SessionID, version: UInt64, timestamp: Timestamp,
        machine: String, definition: String, event: String, source: [String], target: [String],
        navigation: [NavigationOperation], payload: [UInt8], stateData: [UInt8], origin: RecordOrigin?
    ) {
        self.sequence = sequence
        self.session = session
        self.version = version
        self.timestamp = timestamp
        self.machine = machine
        self.definition = definition
        self.event = event
        self.source = source
        self.target = target
        self.navigation = navigation
        self.payload = payload
        self.stateData = stateData
        self.origin = origin
    }

    /// Creates the record of `transition` at `sequence`, as version `version` of `session`.
    public init(sequence: UInt64, session: SessionID, version: UInt64, transition: TransitionDraft) {
        self.init(
            sequence: sequence, session: session, version: version, timestamp: transition.timestamp,
            machine: transition.machine, definition: transition.definition, event: transition.event,
            source: transition.source, target: transition.target, navigation: transition.navigation,
            payload: transition.payload, stateData: transition.stateData, origin: transition.origin)
    }

    /// The record's transition (without sequence, session and version).
    public var transition: TransitionDraft {
        TransitionDraft(
            timestamp: timestamp, machine: machine, definition: definition, event: event,
            source: source, target: target, navigation: navigation, payload: payload,
            stateData: stateData, origin: origin)
    }
}
