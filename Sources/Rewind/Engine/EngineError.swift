import RewindMachine
import RewindStore

/// What can go wrong in the ``Engine`` beyond the machine's own `MachineError` (an invalid
/// transition is thrown as `MachineError.invalidTransition`) and the store's `StoreError` (a
/// version conflict is thrown as `StoreError.versionConflict`). In every case nothing was written
/// and the session's state is unchanged.
public enum EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No session with this id is in the store.
    case unknownSession(SessionID)
    /// The session was erased (``Engine/erase(_:)``, retention): it cannot be resumed, replayed,
    /// exported or forked, and its id cannot start a new session.
    case sessionErased(SessionID, SessionErasure)
    /// No machine with this name is registered with the engine.
    case unknownMachine(String)
    /// A session with this id already exists (`startSession(id:machine:context:isolation:configure:)`,
    /// `makeSession(id:machine:)`).
    case sessionExists(SessionID)
    /// The session exists but runs the machine `machine`, not the machine `requested` it was
    /// opened with (`Engine/openSession(id:machine:context:policy:isolation:configure:)`).
    case sessionOfAnotherMachine(session: SessionID, machine: String, requested: String)
    /// A different machine definition with the same name is already registered.
    case machineAlreadyRegistered(String)
    /// The session's records were written under another definition of its machine than the one
    /// registered now, and it was resumed with ``ResumePolicy/strict``. Resume with
    /// ``ResumePolicy/upgradeWhenCompatible`` (the default) to continue under the registered
    /// definition, or with ``ResumePolicy/replayWithRegistered`` to re-run its events through it.
    case definitionMismatch(session: SessionID, machine: String, recorded: String, registered: String)
    /// The session's recorded state (configuration, history memory, state data, navigation
    /// screens), after the registered ``DefinitionMigration``s that apply, names states the
    /// registered definition does not have in the same place: `problems` lists each one and
    /// where it was. Declare a migration (a rename map or a transform) for it, or resume with
    /// ``ResumePolicy/replayWithRegistered``. Nothing was written.
    case incompatibleDefinition(
        session: SessionID, machine: String, recorded: String, registered: String,
        problems: [DefinitionIncompatibility])
    /// The transform of the declared migration named `migration` threw while moving the session
    /// to the registered definition (`cause` is its error). Nothing was written.
    case migrationFailed(session: SessionID, migration: String, cause: ErrorCause)
    /// Re-running a recorded event gave a different result from the one recorded (resume or
    /// migration).
    case replayDivergence(session: SessionID, version: UInt64, event: String, recorded: [String], computed: [String])
    /// A recorded event could not be re-run: the machine rejected it (`cause`, a `MachineError` say).
    case replayFailed(session: SessionID, version: UInt64, event: String, cause: ErrorCause)
    /// A record whose values were redacted before it was written (``TransitionRecord/redacted``)
    /// is not reproduced from its recorded values (the machine reads a value that was redacted:
    /// `computed` is where it goes instead, `nil` when it rejects the event), and no snapshot of
    /// the recorded state was written with it (one is written whenever the session sees this
    /// coming: a store copied without its snapshots, an archive's import): it cannot be re-checked.
    /// Not corruption.
    case redactedRecordNotReproduced(
        session: SessionID, version: UInt64, event: String, recorded: [String], computed: [String]?)
    /// The event's name is one of the names the engine records its own requests under
    /// (``StepRecording/startEvent``, ``StepRecording/enterEvent``, ``StepRecording/dueEvent``):
    /// sent as an event, its record would read back as a start, a direct move or a send's delivery.
    /// Nothing was written.
    case reservedEventName(String)
    /// The event payload or state data could not be encoded with the store's coder; nothing was
    /// written. `cause` is the coder's error (an `EncodingError`, say).
    case payloadEncoding(event: String, cause: ErrorCause)
    /// A stored snapshot, definition or payload could not be decoded; `cause` is the decoder's
    /// error when one said why (its text ends `reason`).
    case corruptedEntry(what: String, reason: String, cause: ErrorCause? = nil)
    /// The engine was closed: every request made after ``Engine/close()`` (and an append that was
    /// waiting when it closed) throws this, having written nothing.
    case closed
    /// A delivery of the delayed send `event` was asked for (``Session/deliverDueSends()``, or a
    /// `rewind.due` record replayed), but the session's next pending send is not it or is not due
    /// at `atMilliseconds` (milliseconds since 1970); nothing was written.
    case delayedSendNotDue(event: String, atMilliseconds: Int64)

    /// A one-line explanation naming what failed and on what.
    public var description: String {
        switch self {
        case .unknownSession(let session):
            return "unknown session '\(session.excerpt)': the store has no record of it"
        case .sessionErased(let session, let erasure):
            return "session '\(session.excerpt)' was erased at \(erasure.erasedAt) (\(erasure.reason)): "
                + "nothing of it is kept"
        case .unknownMachine(let name):
            return "unknown machine '\(name)': register it with the engine before using it"
        case .sessionExists(let session):
            return
                "session '\(session.excerpt)' already exists; resume it with engine.session(_:), or resume or start it with engine.openSession(id:machine:)"
        case .sessionOfAnotherMachine(let session, let machine, let requested):
            return
                "session '\(session.excerpt)' runs machine '\(machine)', not '\(requested)'; open it with machine '\(machine)'"
        case .machineAlreadyRegistered(let name):
            return "a different definition of machine '\(name)' is already registered with this engine"
        case .definitionMismatch(let session, let machine, let recorded, let registered):
            return "session '\(session.excerpt)' ran under definition \(recorded.prefix(12)) of machine '\(machine)', "
                + "but \(registered.prefix(12)) is registered (resumed strictly); resume with upgradeWhenCompatible "
                + "or replayWithRegistered, or verify it"
        case .incompatibleDefinition(let session, let machine, let recorded, let registered, let problems):
            return "session '\(session.excerpt)' cannot continue under definition \(registered.prefix(12)) of machine "
                + "'\(machine)' (recorded under \(recorded.prefix(12))): "
                + problems.map(\.description).joined(separator: "; ")
                + "; declare a DefinitionMigration for it, or resume with replayWithRegistered"
        case .migrationFailed(let session, let migration, let reason):
            return "the migration '\(migration)' of session '\(session.excerpt)' failed: \(reason); nothing was written"
        case .replayDivergence(let session, let version, let event, let recorded, let computed):
            return "session '\(session.excerpt)' version \(version) (event '\(event)'): recorded target \(recorded) "
                + "but the machine computes \(computed)"
        case .redactedRecordNotReproduced(let session, let version, let event, let recorded, let computed):
            let outcome = computed.map { "reaches \($0)" } ?? "rejects it"
            return "session '\(session.excerpt)' version \(version) (event '\(event)'): redacted: cannot be re-checked "
                + "(its values were redacted before it was written and the machine \(outcome) from them, "
                + "not the recorded \(recorded); no snapshot of the recorded state was written with it)"
        case .replayFailed(let session, let version, let event, let reason):
            return "session '\(session.excerpt)' version \(version) (event '\(event)') cannot be replayed: \(reason)"
        case .reservedEventName(let name):
            return "the event name '\(name)' is reserved for the engine's records; send it under another name"
        case .payloadEncoding(let event, let reason):
            return "the payload of event '\(event)' cannot be encoded: \(reason); nothing was written"
        case .corruptedEntry(let what, let reason, _):
            return "\(what) is corrupted: \(reason)"
        case .closed:
            return "the engine is closed"
        case .delayedSendNotDue(let event, let milliseconds):
            return "no delayed send of '\(event)' is due at \(milliseconds) ms: the session's next pending send is "
                + "another or later; nothing was written"
        }
    }
}
