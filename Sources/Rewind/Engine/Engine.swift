import Foundation
import RewindMachine
import RewindStore
import Synchronization

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
public final class Engine: Sendable {
    /// The engine's store, for reading: the log (`records(of:)`, `headSequence()`), the sessions
    /// and the auxiliary databases in consistent read transactions (`read {}`). Apps write only
    /// through sessions, so that the commit queue, hooks, snapshots, inline projections and
    /// subscribers follow every change.
    public var store: TransitionStoreReader { writableStore.reader }
    /// The store the engine writes to (a constant: the engine never swaps it), for the library's
    /// own modules and tests. A write here bypasses the commit queue, the head notifier and the
    /// inline projections.
    package let writableStore: TransitionStore
    /// How the engine runs.
    public let configuration: EngineConfiguration

    let commits: CommitQueue
    let notifier: HeadNotifier
    /// The registered projections (see `Engine+Projections.swift`).
    let projections: ProjectionRegistry
    /// The redaction of each machine named in ``EngineConfiguration/redaction``, by name, given to
    /// its `StepRecording` when it is registered.
    let redactors: [String: Redactor]
    /// The registered machines (their step ↔ record mappings) and their migrations, by name;
    /// every other property is immutable.
    private let registry = Mutex(Registry())

    /// What ``register(_:as:migrations:)`` registered.
    private struct Registry {
        var machines: [String: StepRecording] = [:]
        var migrations: [String: [DefinitionMigration]] = [:]
    }

    /// Opens (creating it when needed) the store in `directory`; with
    /// ``EngineConfiguration/readOnly`` opens an existing store without creating or changing
    /// anything (its sessions, records and projections can be read; sends and writes throw).
    ///
    /// - Throws: `StoreError.notAStore` for a directory that is not a Rewind store,
    ///   `StoreError.unsupportedFormat`, `DataFileError` for a truncated or damaged data file,
    ///   LMDB's errors; ``RedactionPolicyError`` for a path of ``EngineConfiguration/redaction``
    ///   that does not parse (before the store is opened).
    public init(directory: String, configuration: EngineConfiguration = EngineConfiguration()) throws {
        let redactionFields = try Redactor.fields(of: configuration.redaction)
        var storeConfiguration = configuration.store
        storeConfiguration.environment.options.subtract(EnvironmentOptions.syncOptions)
        storeConfiguration.environment.options.formUnion(configuration.durability.environmentOptions)
        let store = try TransitionStore(directory: directory, configuration: storeConfiguration)
        self.writableStore = store
        self.configuration = configuration
        // The keyed hashes' key: the store's secret (made now if a field needs it and it has none;
        // a read-only engine writes nothing, so it hashes nothing).
        let key: [UInt8]
        do {
            key =
                configuration.readOnly || !configuration.redaction.usesKeyedHashes || redactionFields.isEmpty
                ? [] : try store.write { try $0.storeSecretCreatingIfNeeded() }
        } catch {
            store.close()
            throw error
        }
        self.redactors = redactionFields.mapValues { Redactor(fields: $0, key: key) }
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
            // Asked per lone append: another engine of this process may have made commits sync.
            commitsSync: { (try? store.syncOptions).map { !$0.contains(.noSync) } ?? true },
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
        writableStore.close()
    }

    /// Makes every commit so far durable: flushes what ``Durability/noSync`` left unflushed, or
    /// the last commit's meta page that ``Durability/lastCommitMayRollBack`` did not flush (so an
    /// OS crash or power loss after it undoes nothing). Needless with ``Durability/durable``.
    public func flush() throws {
        try ensureOpen()
        try writableStore.sync(force: true)
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
        var recording = StepRecording(machine: machine, machineName: name, definition: version, coder: store.coder)
        recording.redactor = redactors[name]
        try registry.withLock { registry in
            if let existing = registry.machines[name], existing.definition != version {
                throw EngineError.machineAlreadyRegistered(name)
            }
            registry.machines[name] = recording
            registry.migrations[name] = migrations
        }
        let key = Self.definitionKey(name: name, version: version)
        let stored = try store.read { try $0.value(forKey: key, in: .definitions) }
        if stored == nil && !configuration.readOnly {  // a read-only engine only reads
            let document = Array(machine.definition.jsonDocument())
            try writableStore.write { try $0.put(document, forKey: key, in: .definitions) }
        }
    }

    /// The machine registered under `name`, if any.
    public func machine(named name: String) -> Machine? {
        registry.withLock { $0.machines[name]?.machine }
    }

    /// The step ↔ record mapping of the machine registered as `name` (its `definition` is the
    /// registered definition's content version, computed once at registration), if any.
    func registeredRecording(named name: String) -> StepRecording? {
        registry.withLock { $0.machines[name] }
    }

    /// The registered machines by the content version of their definition (computed once at
    /// registration).
    func registeredMachinesByVersion() -> [String: Machine] {
        registry.withLock { registry in
            Dictionary(
                registry.machines.values.map { ($0.definition, $0.machine) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The migrations registered with the machine registered as `name`, in order.
    func registeredMigrations(named name: String) -> [DefinitionMigration] {
        registry.withLock { $0.migrations[name] ?? [] }
    }

    /// The stored definition of machine `name` at content version `version` (as named by records).
    ///
    /// - Throws: ``EngineError/corruptedEntry(what:reason:cause:)`` when it cannot be decoded.
    public func storedDefinition(name: String, version: String) throws -> MachineDefinition? {
        try store.read { try $0.storedDefinition(name: name, version: version) }
    }

    /// The `definitions` key of machine `name`'s definition with content version `version`.
    package static func definitionKey(name: String, version: String) -> [UInt8] {
        Array(name.utf8) + [0] + Array(version.utf8)
    }

    /// The step ↔ record mapping of the machine registered as `name`.
    ///
    /// - Throws: ``EngineError/unknownMachine(_:)``.
    func recording(for name: String) throws -> StepRecording {
        guard let recording = registry.withLock({ $0.machines[name] }) else { throw EngineError.unknownMachine(name) }
        return recording
    }

    // MARK: Subscriptions

    /// Every committed record from global sequence `sequence` on, then new ones live (see
    /// ``RecordSubscription``).
    public func records(from sequence: UInt64 = 1) -> RecordSubscription {
        RecordSubscription(store: writableStore, notifier: notifier, start: sequence, batchSize: 512)
    }
}
