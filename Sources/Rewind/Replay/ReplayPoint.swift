import RewindMachine
import RewindStore

/// What a session looked like at one version: the screen the user saw, the data behind it and
/// the step that led there.
///
/// Version 0 is the moment before the first record: no configuration, no event.
public struct ReplayPoint: Sendable, Hashable {
    /// The session.
    public var session: SessionID
    /// The session's version (0 before its first record).
    public var version: UInt64
    /// When the record of this version was written (`nil` at version 0).
    public var timestamp: Timestamp?
    /// The event of the record of this version (`nil` at version 0); ``StepRecording/startEvent``
    /// for a start, ``StepRecording/enterEvent`` for a direct move and
    /// ``StepRecording/migrateEvent`` for a move to another definition (its ``payload`` is then a
    /// ``RecordedMigration``'s, read with ``RecordedMigration/init(payload:)``).
    public var event: String?
    /// The event's payload (`null` when it had none, and at version 0).
    public var payload: JSONValue
    /// The active configuration before the step (the record's source).
    public var source: [String]
    /// The active configuration after the step, in document order.
    public var configuration: [String]
    /// The active atomic states (the screens shown).
    public var activeStates: [String]
    /// What the step did to the navigation stack, in order.
    public var navigationOperations: [NavigationOperation]
    /// The navigation stack after the step.
    public var navigation: ScreenStack
    /// The content version of the machine definition the record was written under.
    public var definition: String?
    /// Where the record came from, when it is the first record of a fork.
    public var origin: RecordOrigin?
    /// The interpreter's whole state after the step (configuration, history memory, context,
    /// state data, queues).
    public var state: MachineState

    /// The data carried by the active states, by state id.
    public var stateData: [String: JSONValue] { state.data }
    /// The machine's context.
    public var context: JSONValue { state.context }

    /// Creates a point from its parts.
    public init(
        session: SessionID, version: UInt64, timestamp: Timestamp?, event: String?, payload: JSONValue,
        source: [String], configuration: [String], activeStates: [String],
        navigationOperations: [NavigationOperation], navigation: ScreenStack, definition: String?,
        origin: RecordOrigin?, state: MachineState
    ) {
        self.session = session
        self.version = version
        self.timestamp = timestamp
        self.event = event
        self.payload = payload
        self.source = source
        self.configuration = configuration
        self.activeStates = activeStates
        self.navigationOperations = navigationOperations
        self.navigation = navigation
        self.definition = definition
        self.origin = origin
        self.state = state
    }

    /// The point of `session` at `snapshot`, reached by `step` (`nil` at version 0).
    init(session: SessionID, snapshot: SessionSnapshot, step: RecordedStep?) {
        let record = step?.record
        let configuration = snapshot.state.configuration
        self.init(
            session: session, version: snapshot.version, timestamp: record?.timestamp, event: record?.event,
            payload: step?.request.payload ?? .null, source: record?.source ?? [], configuration: configuration,
            activeStates: step?.recording.machine.atomicStates(of: configuration) ?? [],
            navigationOperations: record?.navigation ?? [], navigation: snapshot.navigation,
            definition: record?.definition, origin: record?.origin, state: snapshot.state)
    }
}
