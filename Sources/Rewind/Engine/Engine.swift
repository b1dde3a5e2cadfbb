import Foundation
import RewindMachine
import RewindStore

/// What `session(_:policy:)` does when a session's records were written under another
/// definition of its machine than the one registered now (a session whose last record names the
/// registered definition resumes the same way under every policy).
///
/// Under ``upgradeWhenCompatible`` and ``replayWithRegistered`` the move to the registered
/// definition is appended as a `rewind.migrate` record (``RecordedMigration``) together with the
/// session's next record, so replay, diff, history and verify show it (see *Durable sessions*,
/// "Upgrades").
public enum ResumePolicy: Sendable, Hashable {
    /// Refuse with ``EngineError/definitionMismatch(session:machine:recorded:registered:)``.
    case strict
    /// The default: continue under the registered definition from the session's latest state
    /// (its latest snapshot and the records after it, re-run with the definition they were
    /// written under), when that state means the same there: every state of its configuration,
    /// history memory, state data and navigation stack exists in the registered definition under
    /// the same ancestors (and with the same kind where that matters). The registered
    /// ``DefinitionMigration``s that apply run first (renames, transforms). States, transitions,
    /// guards or actions added or changed elsewhere need nothing. Otherwise it throws
    /// ``EngineError/incompatibleDefinition(session:machine:recorded:registered:problems:)``
    /// naming each state that is missing or moved.
    case upgradeWhenCompatible
    /// Migrate by replay: re-run every recorded event through the registered definition (from
    /// version 1, ignoring snapshots) and continue from what it computes; fails with
    /// ``EngineError/replayDivergence(session:version:event:recorded:computed:)`` or
    /// ``EngineError/replayFailed(session:version:event:cause:)`` when the new definition does not
    /// reproduce the recording.
    case replayWithRegistered
}

/// The durable state engine: machines registered by name, sessions whose every transition is in
/// the LMDB log before its effects run, group commit, snapshots and catch-up subscriptions.
///
/// ```swift
/// let engine = try Engine(directory: "./rewind-store")
/// try engine.register(try Machine(onboarding))   // a MachineDefinition named "onboarding"
/// let session = try await engine.startSession(id: "user-42", machine: "onboarding")
/// try await session.send("launch")      // durable when it returns
/// // … after a restart:
/// let resumed = try engine.session("user-42")
/// ```
///
/// One engine per store directory and process is the normal use; several (and several
/// processes) work too: LMDB serialises their writes and a session changed elsewhere surfaces as
/// `StoreError.versionConflict` on the next send.
public final class Engine: @unchecked Sendable {
    /// The store the engine writes to (a constant: the engine never swaps it). Read the log from
    /// it (`records(of:)`, `read {}`); write through sessions, so that hooks, snapshots and
    /// projections follow.
    public let store: TransitionStore
    /// How the engine runs.
    public let configuration: EngineConfiguration

    let commits: CommitQueue
    let notifier: HeadNotifier
    /// The registered projections (see `Engine+Projections.swift`).
    let projections: ProjectionRegistry
    /// Guards `machines` and `migrations`; every other property is immutable.
    private let lock = NSLock()
    private var machines: [String: StepRecording] = [:]
    private var migrations: [String: [DefinitionMigration]] = [:]

    /// Opens (creating it when needed) the store in `directory`; with
    /// ``EngineConfiguration/readOnly`` opens an existing store without creating or changing
    /// anything (its sessions, records and projections can be read; sends and writes throw).
    ///
    /// - Throws: `StoreError.notAStore` for a directory that is not a Rewind store,
    ///   `StoreError.unsupportedFormat`, `DataFileError` for a truncated or damaged data file,
    ///   LMDB's errors.
    public init(directory: String, configuration: EngineConfiguration = EngineConfiguration()) throws {
        var storeConfiguration = configuration.store
        storeConfiguration.environment.options.subtract(EnvironmentOptions.syncOptions)
        storeConfiguration.environment.options.formUnion(configuration.durability.environmentOptions)
        let store = try TransitionStore(directory: directory, configuration: storeConfiguration)
        self.store = store
        self.configuration = configuration
        let notifier = HeadNotifier(
            head: try store.headSequence(),
            polling: configuration.externalCommitPollInterval.map { interval in
                HeadNotifier.Polling(interval: interval, readHead: { try store.headSequence() })
            })
        self.notifier = notifier
        // Projections: inline ones run inside each group commit; all are caught up before serving.
        let projections = ProjectionRegistry()
        self.projections = projections
        self.commits = CommitQueue(
            store: store, gathers: configuration.commitGathering.gathers(for: configuration.durability),
            wantsRecords: { projections.hasInlineProjections },
            beforeCommit: { try projections.applyInline($1, in: $0) },
            didCommit: { notifier.advance(to: $0) })
        do {
            for projection in configuration.projections {
                try projections.add(projection.runner(mode: .inline))
            }
            do {
                // A read-only engine reads the projections as stored (their checkpoints may lag).
                if !configuration.readOnly { try catchUpProjections() }
            } catch is ProjectionError {
                // Recorded in the projection's status; the log and the other projections are fine.
            }
        } catch {
            store.close()
            throw error
        }
    }

    /// Closes the engine: subscriptions end, and the store is released.
    public func close() {
        notifier.close()
        store.close()
    }

    /// Makes every commit so far durable: flushes what ``Durability/noSync`` left unflushed, or
    /// the last commit's meta page that ``Durability/lastCommitMayRollBack`` did not flush (so an
    /// OS crash or power loss after it undoes nothing). Needless with ``Durability/durable``.
    public func flush() throws {
        try ensureOpen()
        try store.sync(force: true)
    }

    /// The durability this engine's commits get now: its configured
    /// ``EngineConfiguration/durability``, or a stronger level that another engine (or store)
    /// of this process on the same directory asked for. LMDB's flags are per process and
    /// directory, so the strongest level asked for applies to all of them; it drops back when
    /// that engine closes.
    public var effectiveDurability: Durability {
        get throws {
            try ensureOpen()
            return Durability(try store.syncOptions)
        }
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool { notifier.closed }

    /// Throws ``EngineError/closed`` once the engine is closed (instead of LMDB's error on the
    /// closed store).
    func ensureOpen() throws {
        if isClosed { throw EngineError.closed }
    }

    /// How the group commits went so far (batch sizes).
    public var commitStatistics: CommitStatistics { commits.currentStatistics }

    // MARK: Machines

    /// Registers `machine` under its definition's name (or `name`), and stores its definition
    /// (the JSON interchange document, keyed by name and content version) so tools can read its
    /// sessions without the app's code (not by a read-only engine, which writes nothing).
    ///
    /// `migrations` move sessions recorded under earlier definitions that this one cannot take as
    /// they stand (a renamed, removed or moved state) forward when they resume (see
    /// ``DefinitionMigration`` and ``ResumePolicy/upgradeWhenCompatible``); registering the same
    /// definition again replaces them.
    ///
    /// - Throws: ``EngineError/machineAlreadyRegistered(_:)`` when another definition has that name.
    public func register(_ machine: Machine, as name: String? = nil, migrations: [DefinitionMigration] = []) throws {
        try ensureOpen()
        let name = name ?? machine.definition.name
        let version = machine.definition.contentVersion
        let recording = StepRecording(machine: machine, machineName: name, definition: version, coder: store.coder)
        try lock.withLock {
            if let existing = machines[name], existing.definition != version {
                throw EngineError.machineAlreadyRegistered(name)
            }
            machines[name] = recording
            self.migrations[name] = migrations
        }
        let key = Self.definitionKey(name: name, version: version)
        let stored = try store.read { try $0.value(forKey: key, in: .definitions) }
        if stored == nil && !configuration.readOnly {  // a read-only engine only reads
            let document = Array(machine.definition.jsonDocument())
            try store.write { try $0.put(document, forKey: key, in: .definitions) }
        }
    }

    /// The machine registered under `name`, if any.
    public func machine(named name: String) -> Machine? {
        lock.withLock { machines[name]?.machine }
    }

    /// The step ↔ record mapping of the machine registered as `name` (its `definition` is the
    /// registered definition's content version, computed once at registration), if any.
    func registeredRecording(named name: String) -> StepRecording? {
        lock.withLock { machines[name] }
    }

    /// The migrations registered with the machine registered as `name`, in order.
    func registeredMigrations(named name: String) -> [DefinitionMigration] {
        lock.withLock { migrations[name] ?? [] }
    }

    /// The stored definition of machine `name` at content version `version` (as named by records).
    ///
    /// - Throws: ``EngineError/corruptedEntry(what:reason:cause:)`` when it cannot be decoded.
    public func storedDefinition(name: String, version: String) throws -> MachineDefinition? {
        guard let bytes = try store.read({ try $0.value(forKey: Self.definitionKey(name: name, version: version), in: .definitions) })
        else { return nil }
        do {
            return try MachineDefinition(jsonDocument: Data(bytes))
        } catch {
            throw EngineError.corruptedEntry(what: "the stored definition \(name)@\(version)", reason: String(describing: error), cause: ErrorCause(error))
        }
    }

    static func definitionKey(name: String, version: String) -> [UInt8] {
        Array(name.utf8) + [0] + Array(version.utf8)
    }

    private func recording(for name: String) throws -> StepRecording {
        guard let recording = lock.withLock({ machines[name] }) else { throw EngineError.unknownMachine(name) }
        return recording
    }

    // MARK: Sessions

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
    /// - Throws: ``EngineError/sessionExists(_:)``, ``EngineError/unknownMachine(_:)``.
    public func makeSession(id: SessionID, machine: String) throws -> Session {
        try makeSession(id: id, machine: machine, resumePolicy: .strict)
    }

    /// `makeSession(id:machine:)` for a session that ``Session/reload()``s with `resumePolicy`.
    func makeSession(id: SessionID, machine: String, resumePolicy: ResumePolicy) throws -> Session {
        try ensureOpen()
        let recording = try recording(for: machine)
        if try store.sessionInfo(for: id) != nil { throw EngineError.sessionExists(id) }
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
        guard let info = try store.sessionInfo(for: id) else { throw EngineError.unknownSession(id) }
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
            guard let info = try transaction.sessionInfo(for: id) else { throw EngineError.unknownSession(id) }
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
            var snapshot = try SessionSnapshot.latest(of: id, atOrBefore: info.headVersion, in: transaction)
                ?? .empty(definition: recording.definition)
            var start = snapshot.version + 1
            let next = try transaction.records(of: id, from: start, limit: 1).first
            if snapshot.definition != recording.definition || (next.map { $0.definition != recording.definition } ?? false) {
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
            try transaction.forEachRecord(of: id, from: start) { record in
                snapshot = try recording.replay(record, on: snapshot).1
                return .next
            }
            snapshot.definition = recording.definition
            return ResumedState(snapshot: snapshot, migration: nil)
        }
    }

    // MARK: Subscriptions

    /// Every committed record from global sequence `sequence` on, then new ones live (see
    /// ``RecordSubscription``).
    public func records(from sequence: UInt64 = 1) -> RecordSubscription {
        RecordSubscription(store: store, notifier: notifier, start: sequence, batchSize: 512)
    }
}
