import Foundation
import RewindMachine
import RewindStore

/// What `session(_:policy:)` does when a session's records were written under another
/// definition of its machine than the one registered now.
public enum ResumePolicy: Sendable, Hashable {
    /// Refuse with ``EngineError/definitionMismatch(session:machine:recorded:registered:)``.
    case strict
    /// Migrate: re-run every recorded event through the registered definition (from version 1,
    /// ignoring snapshots) and continue under it, when the session's last record names another
    /// definition (else, when the session was migrated before, resume as ``strict`` does); fails with
    /// ``EngineError/replayDivergence(session:version:event:recorded:computed:)`` or
    /// ``EngineError/replayFailed(session:version:event:reason:)`` when the new definition does not
    /// reproduce the recording. Replay re-creates the migration where the records' definition
    /// changes, so it shows the migrated state after it (see *Durable sessions*, "Resume").
    case replayWithRegistered
}

/// The durable state engine: machines registered by name, sessions whose every transition is in
/// the LMDB log before its effects run, group commit, snapshots and catch-up subscriptions.
///
/// ```swift
/// let engine = try Engine(directory: "./rewind-store")
/// try engine.register(try ExampleMachines.Onboarding.machine())
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
    /// The store the engine writes to.
    public let store: TransitionStore
    /// How the engine runs.
    public let configuration: EngineConfiguration

    let commits: CommitQueue
    let notifier: HeadNotifier
    /// The registered projections (see `Engine+Projections.swift`).
    let projections: ProjectionRegistry
    /// Guards `machines`; every other property is immutable.
    private let lock = NSLock()
    private var machines: [String: StepRecording] = [:]

    /// Opens (creating it when needed) the store in `directory`; with
    /// ``EngineConfiguration/readOnly`` opens an existing store without creating or changing
    /// anything (its sessions, records and projections can be read; sends and writes throw).
    ///
    /// - Throws: `StoreError.notAStore` for a directory that is not a Rewind store,
    ///   `StoreError.unsupportedFormat`, `DataFileError` for a truncated or damaged data file,
    ///   LMDB's errors.
    public init(directory: String, configuration: EngineConfiguration = EngineConfiguration()) throws {
        var storeConfiguration = configuration.store
        switch configuration.durability {
        case .durable:
            storeConfiguration.environment.options.remove(.noSync)
        case .noSync:
            storeConfiguration.environment.options.insert(.noSync)
        }
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

    /// Makes every commit so far durable (needed only with ``Durability/noSync``).
    public func flush() throws {
        try ensureOpen()
        try store.sync(force: true)
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
    /// - Throws: ``EngineError/machineAlreadyRegistered(_:)`` when another definition has that name.
    public func register(_ machine: Machine, as name: String? = nil) throws {
        try ensureOpen()
        let name = name ?? machine.definition.name
        let version = machine.definition.contentVersion
        let recording = StepRecording(machine: machine, machineName: name, definition: version, coder: store.coder)
        try lock.withLock {
            if let existing = machines[name], existing.definition != version {
                throw EngineError.machineAlreadyRegistered(name)
            }
            machines[name] = recording
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

    /// The stored definition of machine `name` at content version `version` (as named by records).
    ///
    /// - Throws: ``EngineError/corruptedEntry(what:reason:)`` when it cannot be decoded.
    public func storedDefinition(name: String, version: String) throws -> MachineDefinition? {
        guard let bytes = try store.read({ try $0.value(forKey: Self.definitionKey(name: name, version: version), in: .definitions) })
        else { return nil }
        do {
            return try MachineDefinition(jsonDocument: Data(bytes))
        } catch {
            throw EngineError.corruptedEntry(what: "the stored definition \(name)@\(version)", reason: "\(error)")
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
    /// `didEnter(from:)` with no previous state).
    ///
    /// - Throws: ``EngineError/sessionExists(_:)``, ``EngineError/unknownMachine(_:)``, the
    ///   machine's and the store's errors (nothing written).
    public func startSession(
        id: SessionID, machine: String, context: JSONValue = .null,
        configure: (Session) -> Void = { _ in }
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

    /// Starts a new session with a plain string id (see `startSession(id:machine:context:configure:)`).
    public func startSession(
        id: String, machine: String, context: JSONValue = .null,
        configure: (Session) -> Void = { _ in }
    ) async throws -> Session {
        try await startSession(id: try SessionID(id), machine: machine, context: context, configure: configure)
    }

    /// Creates a session that has no record yet, without starting it: its first request must be a
    /// direct move (`enter`), which starts it in that state (a `send` throws
    /// `MachineError.notStarted`); `startSession(id:machine:context:configure:)` starts one in the
    /// initial configuration instead. Use this for GKStateMachine-style machines whose first step
    /// is `enter(state)`.
    ///
    /// - Throws: ``EngineError/sessionExists(_:)``, ``EngineError/unknownMachine(_:)``.
    public func makeSession(id: SessionID, machine: String) throws -> Session {
        try ensureOpen()
        let recording = try recording(for: machine)
        if try store.sessionInfo(for: id) != nil { throw EngineError.sessionExists(id) }
        return Session(
            id: id, machineName: machine, recording: recording, engine: self,
            snapshot: .empty(definition: recording.definition))
    }

    /// Resumes an existing session: its full interpreter state (configuration, history memory,
    /// context, state data, navigation stack) from its latest snapshot plus the records after it.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, ``EngineError/unknownMachine(_:)``,
    ///   ``EngineError/definitionMismatch(session:machine:recorded:registered:)`` (under
    ///   ``ResumePolicy/strict``), replay and store errors.
    public func session(_ id: SessionID, policy: ResumePolicy = .strict) throws -> Session {
        try ensureOpen()
        guard let info = try store.sessionInfo(for: id) else { throw EngineError.unknownSession(id) }
        let recording = try recording(for: info.machine)
        let snapshot = try loadSnapshot(of: id, recording: recording, policy: policy)
        return Session(
            id: id, machineName: info.machine, recording: recording, engine: self, snapshot: snapshot,
            resumePolicy: policy)
    }

    /// Resumes an existing session by its plain string id.
    public func session(_ id: String, policy: ResumePolicy = .strict) throws -> Session {
        try session(try SessionID(id), policy: policy)
    }

    /// Every session in the store, with its head version and machine.
    public func sessions() throws -> [SessionInfo] {
        try ensureOpen()
        return try store.sessions()
    }

    /// The session's state at its head, rebuilt from the store.
    func loadSnapshot(
        of id: SessionID, recording: StepRecording, policy: ResumePolicy = .strict
    ) throws -> SessionSnapshot {
        try ensureOpen()
        return try store.read { transaction in
            guard let info = try transaction.sessionInfo(for: id) else { throw EngineError.unknownSession(id) }
            guard let head = try transaction.records(of: id, from: info.headVersion, limit: 1).first else {
                throw EngineError.unknownSession(id)
            }
            if head.definition != recording.definition {
                guard policy == .replayWithRegistered else {
                    throw EngineError.definitionMismatch(
                        session: id, machine: info.machine, recorded: head.definition,
                        registered: recording.definition)
                }
                return try recording.migrated(id, in: transaction)
            }
            // The head names the registered definition (the session may have been migrated to it
            // before: a migration now would compute what the latest snapshot under it holds).
            var snapshot = try SessionSnapshot.latest(of: id, atOrBefore: info.headVersion, in: transaction)
                ?? .empty(definition: recording.definition)
            if snapshot.definition != recording.definition {
                // Written before a migration: rebuild from the records instead.
                snapshot = .empty(definition: recording.definition)
            }
            try transaction.forEachRecord(of: id, from: snapshot.version + 1) { record in
                snapshot = try recording.replay(record, on: snapshot).1
                return .next
            }
            snapshot.definition = recording.definition
            return snapshot
        }
    }

    // MARK: Subscriptions

    /// Every committed record from global sequence `sequence` on, then new ones live (see
    /// ``RecordSubscription``).
    public func records(from sequence: UInt64 = 1) -> RecordSubscription {
        RecordSubscription(store: store, notifier: notifier, start: sequence, batchSize: 512)
    }
}
