/// One entry of the durable log: a transition of a session, with its place in the global log and
/// in its session.
///
/// A record is its ``TransitionDraft`` (``transition``, what the appender wrote) plus what the
/// store assigned: ``sequence``, ``session`` and ``version``. The draft's fields are stored once,
/// in ``transition``, and read and written through the forwarding properties below
/// (`record.machine`, `record.payload.append(…)`); they are inlinable and mutate in place, so a
/// record costs no more than when it held the fields itself. Its `Codable` form is flat, as it
/// always was: `sequence`, `session`, `version`, then the draft's keys.
public struct TransitionRecord: Sendable, Hashable, Codable {
    /// The global sequence number (1-based, gap-free across the whole store).
    public var sequence: UInt64
    /// The session.
    public var session: SessionID
    /// The version within the session (1, 2, 3 …).
    public var version: UInt64
    /// The record's transition: every field but ``sequence``, ``session`` and ``version``.
    public var transition: TransitionDraft

    /// Creates the record of `transition` at `sequence`, as version `version` of `session`.
    @inlinable
    public init(sequence: UInt64, session: SessionID, version: UInt64, transition: TransitionDraft) {
        self.sequence = sequence
        self.session = session
        self.version = version
        self.transition = transition
    }

    /// Creates a record from its fields.
    @inlinable
    public init(
        sequence: UInt64, session: SessionID, version: UInt64, timestamp: Timestamp,
        machine: String, definition: String, event: String, source: [String], target: [String],
        navigation: [NavigationOperation], payload: [UInt8], stateData: [UInt8], origin: RecordOrigin?,
        redacted: Bool = false
    ) {
        self.init(
            sequence: sequence, session: session, version: version,
            transition: TransitionDraft(
                timestamp: timestamp, machine: machine, definition: definition, event: event,
                source: source, target: target, navigation: navigation, payload: payload,
                stateData: stateData, origin: origin, redacted: redacted))
    }

    // MARK: The draft's fields

    /// The wall-clock time of the transition.
    @inlinable public var timestamp: Timestamp {
        get { transition.timestamp }
        _modify { yield &transition.timestamp }
    }
    /// The machine's name.
    @inlinable public var machine: String {
        get { transition.machine }
        _modify { yield &transition.machine }
    }
    /// The machine definition's content version.
    @inlinable public var definition: String {
        get { transition.definition }
        _modify { yield &transition.definition }
    }
    /// The event that caused the transition.
    @inlinable public var event: String {
        get { transition.event }
        _modify { yield &transition.event }
    }
    /// The state configuration before.
    @inlinable public var source: [String] {
        get { transition.source }
        _modify { yield &transition.source }
    }
    /// The state configuration after.
    @inlinable public var target: [String] {
        get { transition.target }
        _modify { yield &transition.target }
    }
    /// What the transition does to the navigation stack, in order (a macrostep may do several things).
    @inlinable public var navigation: [NavigationOperation] {
        get { transition.navigation }
        _modify { yield &transition.navigation }
    }
    /// The event's payload bytes.
    @inlinable public var payload: [UInt8] {
        get { transition.payload }
        _modify { yield &transition.payload }
    }
    /// The target state's data bytes.
    @inlinable public var stateData: [UInt8] {
        get { transition.stateData }
        _modify { yield &transition.stateData }
    }
    /// Where the record came from when its session is a fork.
    @inlinable public var origin: RecordOrigin? {
        get { transition.origin }
        _modify { yield &transition.origin }
    }
    /// Whether redaction changed what the session held before the record was written (see
    /// ``TransitionDraft/redacted``).
    @inlinable public var redacted: Bool {
        get { transition.redacted }
        _modify { yield &transition.redacted }
    }

    // MARK: Codable (flat, as before the fields were shared)

    private enum PlaceKeys: String, CodingKey {
        case sequence, session, version
    }

    /// Decodes a record from one flat keyed container: the place keys and the draft's keys.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: PlaceKeys.self)
        sequence = try container.decode(UInt64.self, forKey: .sequence)
        session = try container.decode(SessionID.self, forKey: .session)
        version = try container.decode(UInt64.self, forKey: .version)
        transition = try TransitionDraft(from: decoder)
    }

    /// Encodes the record as one flat keyed container: the place keys, then the draft's keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PlaceKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(session, forKey: .session)
        try container.encode(version, forKey: .version)
        try transition.encode(to: encoder)
    }
}
