/// A recorded session written out as source literals: what a regression test made from a bug
/// report plays back on the app's machine (``play(on:)``).
///
/// `rewind session-test` writes one per session into a Swift Testing file: each
/// ``Step`` is one recorded version with its event and payload and what the session recorded
/// after it (the active configuration, the data the step entered states with, the navigation
/// stack), the JSON values as canonical JSON text, exactly as the log holds them (already
/// redacted by the store's redaction policy).
///
/// ```swift
/// let session = RecordedSession(id: "user-42", machine: "kanji", startedAt: 1_764_352_000_000, steps: [
///     .init(version: 1, event: "rewind.start", at: 0, payload: #"null"#,
///           configuration: ["all"], stateData: #"{}"#, navigation: #"[{"screen":"all"}]"#),
///     .init(version: 2, event: "select", at: 850, payload: #"{"character":"日"}"#,
///           configuration: ["detail"], stateData: #"{"detail":{"character":"日"}}"#,
///           navigation: #"[{"screen":"all"},{"data":{"character":"日"},"screen":"detail"}]"#),
/// ])
/// let playback = try session.play(on: try ExampleMachines.Kanji.machine())
/// #expect(playback.mismatch == nil, "\(playback)")
/// ```
public struct RecordedSession: Sendable, Hashable {
    /// The recorded session's id (as text: a test names it, it is not looked up).
    public var id: String
    /// The name of the machine it was recorded with.
    public var machine: String
    /// The time of the session's first step, in milliseconds since 1970 (the steps' times are
    /// offsets from it).
    public var startedAt: Int64
    /// The recorded versions, in order (from version 1, or from the session's last migration).
    public var steps: [Step]

    /// A recorded session from its parts.
    public init(id: String, machine: String, startedAt: Int64, steps: [Step]) {
        self.id = id
        self.machine = machine
        self.startedAt = startedAt
        self.steps = steps
    }

    /// One recorded version: what was asked of the machine and what the session recorded after it.
    /// JSON values are JSON text (parsed when the session is played; a malformed one is a
    /// ``RecordedSessionError``).
    public struct Step: Sendable, Hashable {
        /// The session version.
        public var version: UInt64
        /// The recorded event (`rewind.start` for the first entry, `rewind.enter`, `rewind.due`
        /// and `rewind.migrate` for the engine's own steps).
        public var event: String
        /// When the step happened: milliseconds after ``RecordedSession/startedAt``.
        public var at: Int64
        /// The event's payload as JSON text (`null` for none).
        public var payload: String
        /// The active configuration after the step, in document order.
        public var configuration: [String]
        /// The data the step entered states with, by state id, as a JSON object (the record's
        /// state data; `{}` for none).
        public var stateData: String
        /// The navigation stack after the step: a JSON array of `{"screen": …, "data": …}`
        /// entries, root first.
        public var navigation: String
        /// The state the session recorded after the step (``MachineState``'s JSON), when it
        /// recorded one: a migration's state, or the state after a step whose values were
        /// redacted and that the machine may not reproduce from them. Playback continues from it.
        public var recordedState: String?
        /// Whether the step's values were redacted (by the store's policy, or when the test was
        /// written): when the machine does not reproduce the step from the redacted values, the
        /// step says so ("redacted: cannot be re-checked") instead of failing.
        public var redacted: Bool

        /// A step from its parts.
        public init(
            version: UInt64, event: String, at: Int64, payload: String, configuration: [String], stateData: String,
            navigation: String, recordedState: String? = nil, redacted: Bool = false
        ) {
            self.version = version
            self.event = event
            self.at = at
            self.payload = payload
            self.configuration = configuration
            self.stateData = stateData
            self.navigation = navigation
            self.recordedState = recordedState
            self.redacted = redacted
        }
    }
}
