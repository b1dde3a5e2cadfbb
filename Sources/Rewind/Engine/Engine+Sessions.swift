import RewindMachine
import RewindStore

/// Sessions: starting a new one, creating one to start with a direct move, and resuming one
/// from the store (its state at its head, moved to the registered definition as the
/// ``ResumePolicy`` says).
extension Engine {
    /// Starts a new session of the machine registered as `machine` and enters its initial
    /// configuration (the first record, event `rewind.start`, whose payload is `context`).
    ///
    /// `configure` runs before the first entry: register hooks there to see it (GKState's
    /// `didEnter(from:)` with no previous state). The call runs on the caller's actor
    /// (`isolation`), so a `configure` closure made on the main actor stays there.
    ///
    /// - Throws: ``EngineError/sessionExists(_:)``, ``EngineError/unknownMachine(_:)``, the
    ///   machine's and the store's errors (nothing written).
    public func startSession(
        id: SessionID, machine: String, context: JSONValue = .null,
        isolation: isolated (any Actor)? = #isolation, configure: (Session) -> Void = { _ in }
    ) async throws -> Session {
        let session = try makeSession(id: id, machine: machine)
        configure(session)
        do {
            _ = try await session.perform(.start(context: context))
        } catch StoreError.versionConflict {
            throw EngineError.sessionExists(id)
        }
        return session
    }

    /// Starts a new session with a plain string id (see `startSession(id:machine:context:isolation:configure:)`).
    public func startSession(
        id: String, machine: String, context: JSONValue = .null,
        isolation: isolated (any Actor)? = #isolation, configure: (Session) -> Void = { _ in }
    ) async throws -> Session {
        try await startSession(
            id: try SessionID(id), machine: machine, context: context, isolation: isolation, configure: configure)
    }

    /// Creates a session that has no record yet, without starting it: its first request must be a
    /// direct move (`enter`), which starts it in that state (a `send` throws
    /// `MachineError.notStarted`); `startSession(id:machine:context:isolation:configure:)` starts one in the
    /// initial configuration instead. Use this for GKStateMachine-style machines whose first step
    /// is `enter(state)`.
    ///
    /// The session ``Session/reload()``s under ``ResumePolicy/upgradeWhenCompatible``, the default
    /// of `session(_:policy:)` and `openSession(id:machine:context:policy:isolation:configure:)`.
    ///
    /// - Throws: ``EngineError/sessionExists(_:)``, ``EngineError/unknownMachine(_:)``.
    public func makeSession(id: SessionID, machine: String) throws -> Session {
        try makeSession(id: id, machine: machine, resumePolicy: .upgradeWhenCompatible)
    }

    /// `makeSession(id:machine:)` for a session that ``Session/reload()``s with `resumePolicy`.
    func makeSession(id: SessionID, machine: String, resumePolicy: ResumePolicy) throws -> Session {
        try ensureOpen()
        let recording = try recording(for: machine)
        try store.read { transaction in
            if try transaction.sessionInfo(for: id) != nil { throw EngineError.sessionExists(id) }
            if let erasure = try transaction.erasure(of: id) { throw EngineError.sessionErased(id, erasure) }
        }
        return Session(
            id: id, machineName: machine, recording: recording, engine: self,
            snapshot: .empty(definition: recording.definition), resumePolicy: resumePolicy)
    }

    /// Resumes an existing session: its full interpreter state (configuration, history memory,
    /// context, state data, navigation stack) from its latest snapshot plus the records after it.
    ///
    /// When its records were written under another definition of its machine than the registered
    /// one, `policy` says what happens (by default the session continues under the registered
    /// definition when its state means the same there; see ``ResumePolicy``). Nothing is written
    /// here: the move's `rewind.migrate` record is appended with the session's next record.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, ``EngineError/unknownMachine(_:)``,
    ///   ``EngineError/incompatibleDefinition(session:machine:recorded:registered:problems:)`` and
    ///   ``EngineError/migrationFailed(session:migration:cause:)`` (under
    ///   ``ResumePolicy/upgradeWhenCompatible``),
    ///   ``EngineError/definitionMismatch(session:machine:recorded:registered:)`` (under
    ///   ``ResumePolicy/strict``), replay and store errors.
    public func session(_ id: SessionID, policy: ResumePolicy = .upgradeWhenCompatible) throws -> Session {
        try ensureOpen()
        let info = try store.read { try $0.requireSessionInfo(for: id) }
        let recording = try recording(for: info.machine)
        let resumed = try loadSnapshot(of: id, recording: recording, policy: policy)
        return Session(
            id: id, machineName: info.machine, recording: recording, engine: self, resumed: resumed,
            resumePolicy: policy)
    }

    /// Resumes an existing session by its plain string id.
    public func session(_ id: String, policy: ResumePolicy = .upgradeWhenCompatible) throws -> Session {
        try session(try SessionID(id), policy: policy)
    }

    /// Every session in the store, with its head version and machine.
    public func sessions() throws -> [SessionInfo] {
        try ensureOpen()
        return try store.sessions()
    }

    /// The session's state at its head, rebuilt from the store, moved to `recording`'s definition
    /// as `policy` says when its head names another one.
    func loadSnapshot(
        of id: SessionID, recording: StepRecording, policy: ResumePolicy
    ) throws -> ResumedState {
        try ensureOpen()
        return try store.read { transaction in
            let info = try transaction.requireSessionInfo(for: id)
            guard let head = try transaction.records(of: id, from: info.headVersion, limit: 1).first else {
                throw EngineError.unknownSession(id)
            }
            if head.definition != recording.definition {
                switch policy {
                case .strict:
                    throw EngineError.definitionMismatch(
                        session: id, machine: info.machine, recorded: head.definition,
                        registered: recording.definition)
                case .upgradeWhenCompatible:
                    let recorded = try recordedState(
                        of: id, at: info.headVersion, registered: recording, in: transaction)
                    return try upgrade(recorded, of: id, to: recording)
                case .replayWithRegistered:
                    let migrated = try recording.migrated(id, in: transaction)
                    let record = RecordedMigration(
                        from: head.definition, to: recording.definition, replayed: true, state: migrated.state,
                        navigation: migrated.navigation)
                    return ResumedState(
                        snapshot: migrated,
                        migration: try recording.transition(
                            for: record, source: head.target, navigation: migrated.navigation))
                }
            }
            // The head names the registered definition (the session may have moved to it before).
            var snapshot =
                try SessionSnapshot.latest(of: id, atOrBefore: info.headVersion, in: transaction)
                ?? .empty(definition: recording.definition)
            var start = snapshot.version + 1
            let next = try transaction.records(of: id, from: start, limit: 1).first
            if snapshot.definition != recording.definition
                || (next.map { $0.definition != recording.definition } ?? false)
            {
                // Records from before the move follow: continue from the move's `rewind.migrate`
                // record (its payload holds the state after it), or, in a log written before those
                // records existed, rebuild from the records re-run through this definition.
                var move: UInt64?
                try transaction.forEachRecord(of: id, from: start) { record in
                    if record.event == StepRecording.migrateEvent { move = record.version }
                    return .next
                }
                snapshot = .empty(definition: recording.definition)
                start = move ?? 1
            }
            snapshot = try SessionSnapshot.rebuilt(
                id, at: info.headVersion, from: snapshot, firstVersion: start,
                records: SessionSnapshot.records(of: id, through: info.headVersion, in: transaction)
            ) { record, snapshot in
                _ = try recording.replay(
                    record, request: try recording.request(of: record), advancing: &snapshot, in: transaction)
            }
            snapshot.definition = recording.definition
            return ResumedState(snapshot: snapshot, migration: nil)
        }
    }
}
