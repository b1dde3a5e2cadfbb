import Foundation
import RewindLMDB

/// The durable transition log: one LMDB environment (a directory) holding every session's
/// transitions in one gap-free global sequence, a per-session index, session metadata and the
/// auxiliary databases of the layers above.
///
/// ```swift
/// let store = try TransitionStore(directory: "./rewind-store")
/// let session = SessionID("user-42")
/// try store.append([TransitionDraft(machine: "onboarding", definition: "v1", event: "start",
///                              source: [], target: ["greeting"])],
///                  to: session, expectedVersion: .noStream)
/// let history = try store.read { try $0.records(of: session) }
/// ```
///
/// Writes are synchronous closures run on the calling thread (LMDB's writer lock is per thread);
/// a write closure **may run more than once** when the map grows (see `Environment.write`).
/// Opening the same directory twice in one process shares one LMDB environment.
public final class TransitionStore: Sendable {
    // Concurrency: every stored property is immutable; `environment` synchronises itself.
    let environment: Environment
    let databases: StoreDatabases
    /// The newest session tail this process read or wrote (see ``SessionTail``).
    let tailCache = SessionTailCache()

    /// The canonical path of the store's directory.
    public let path: String
    /// The store's id, written at creation.
    public let storeID: UUID
    /// The store format of the directory (at most ``StoreLayout/formatVersion``).
    public let formatVersion: UInt32
    /// The configuration the store was opened with.
    public let configuration: StoreConfiguration

    /// The coder for the app's payloads and state data (``StoreConfiguration/coder``).
    public var coder: any PayloadCoder { configuration.coder }

    /// Opens the store in `directory`, creating it when the directory does not exist or is empty.
    ///
    /// - Throws: ``StoreError/notAStore(path:reason:)`` when the directory has files but is not a
    ///   Rewind store (nothing is changed in it); ``StoreError/unsupportedFormat(found:supported:)``
    ///   when a newer format wrote it; `LMDBError` when LMDB fails.
    ///
    /// With ``StoreConfiguration/readOnly`` nothing is created or written: the directory must hold
    /// a store of the current format, and writes throw.
    ///
    /// A data file too short for the pages its meta pages name (a truncated copy) throws
    /// `DataFileError` before anything maps it.
    public init(directory: String, configuration: StoreConfiguration = StoreConfiguration()) throws {
        var configuration = configuration
        configuration.environment.maxDatabases = max(
            configuration.environment.maxDatabases,
            StoreLayout.minimumDatabases)
        let opened =
            configuration.readOnly
            ? try Self.openReadOnlyStore(directory, configuration: configuration.environment)
            : try Self.openWritableStore(directory, configuration: &configuration)
        self.environment = opened.environment
        self.databases = opened.databases
        self.path = opened.environment.path
        self.storeID = opened.storeID
        self.formatVersion = opened.format
        self.configuration = configuration
    }

    /// Releases the store's environment handle; the environment closes once every handle of the
    /// directory in this process is closed. Later calls on this store throw.
    public func close() {
        environment.close()
    }

    // MARK: Transactions

    /// Runs `body` in a read transaction: one consistent snapshot of the whole store.
    public func read<R>(_ body: (StoreReadTransaction) throws -> R) throws -> R {
        try environment.read { txn in
            try body(StoreReadTransaction(transaction: txn, databases: databases, tailCache: tailCache))
        }
    }

    /// Runs `body` in a write transaction, committed (durably, unless the environment was opened
    /// with a no-sync option) when `body` returns and aborted when it throws. `body` may run more
    /// than once when the map has to grow.
    ///
    /// Specialized for `Void` (the engine's commits), exported to the callers in other modules:
    /// unspecialized, every commit looked its generic types up in the runtime's metadata cache.
    @_specialize(exported:true,kind:full,where R == Void)
    public func write<R>(_ body: (StoreWriteTransaction) throws -> R) throws -> R {
        let maximumTail = UInt64(max(0, configuration.maximumSessionTail))
        // The tail comes out beside the result, not in a tuple with it: for an `R` other than
        // `Void` this function runs unspecialized (callers are in other modules), and a tuple of
        // `R` and the tail was a tuple type made at run time through the metadata cache on every
        // commit, twice (~1,400 instructions of a durable send; callgrind, Benchmarks/HISTORY.md
        // 2026-12-01).
        var tail: (SessionTail, CommitID)?
        let result = try environment.write { txn in
            tail = nil  // the closure runs again after the map grows
            let transaction = StoreWriteTransaction(
                transaction: txn, databases: databases, tailCache: tailCache)
            let result = try body(transaction)
            try transaction.writeTailIfLonger(than: maximumTail)
            tail = try transaction.loadedTail.map { ($0, try txn.resultCommit()) }
            return result
        }
        // Committed: the transaction's tail is now the store's (an aborted one's is read again).
        if let tail { tailCache.offer(tail.0, at: tail.1) }
        return result
    }

    // MARK: Conveniences

    /// Appends `transitions` to `session` in its own transaction (see
    /// ``StoreWriteTransaction/append(_:to:expectedVersion:)``).
    @discardableResult
    public func append(
        _ transitions: [TransitionDraft], to session: SessionID, expectedVersion: ExpectedVersion = .any
    ) throws -> AppendResult {
        try write { try $0.append(transitions, to: session, expectedVersion: expectedVersion) }
    }

    /// Appends a batch for one or many sessions in one transaction, all or nothing: if any
    /// session's append fails, nothing of the batch is written.
    @discardableResult
    public func append(_ batch: [SessionAppend]) throws -> [AppendResult] {
        try write { txn in
            try batch.map { try txn.append($0.transitions, to: $0.session, expectedVersion: $0.expectedVersion) }
        }
    }

    /// The record at global sequence `sequence`, or `nil`.
    public func record(at sequence: UInt64) throws -> TransitionRecord? {
        try read { try $0.record(at: sequence) }
    }

    /// The global sequence of the last record (0 when the log is empty).
    public func headSequence() throws -> UInt64 {
        try read { try $0.headSequence() }
    }

    /// What the store knows about `session`, or `nil`.
    public func sessionInfo(for session: SessionID) throws -> SessionInfo? {
        try read { try $0.sessionInfo(for: session) }
    }

    /// Every session with its head version and machine, ordered by id.
    public func sessions() throws -> [SessionInfo] {
        try read { try $0.sessions() }
    }

    /// The records of `session` with versions in `versions`, in `direction`.
    public func records(
        of session: SessionID, versions: ClosedRange<UInt64> = 1...UInt64.max,
        direction: IterationDirection = .forward
    ) throws -> [TransitionRecord] {
        try read { try $0.records(of: session, versions: versions, direction: direction) }
    }

    /// Up to `limit` records of the whole log from global sequence `start` on.
    public func records(from start: UInt64 = 1, limit: Int = .max) throws -> [TransitionRecord] {
        try read { try $0.records(from: start, limit: limit) }
    }

    /// Flushes to disk (needed only with a no-sync option).
    public func sync(force: Bool = true) throws {
        try environment.sync(force: force)
    }

    /// How this process's commits of the store flush now (`Environment.syncOptions`): the
    /// strongest level asked for by the writable opens of the directory in this process, which
    /// can be stronger than ``configuration`` asks for.
    public var syncOptions: EnvironmentOptions {
        get throws { try environment.syncOptions }
    }

    /// The LMDB environment's statistics (map size, used pages).
    public func statistics() throws -> EnvironmentStatistics {
        try environment.statistics()
    }

    /// Rewrites the store into a compacted copy and replaces its data file with it atomically
    /// (`Environment.compact(headroom:progress:)`): the file shrinks to the pages in use plus
    /// `headroom` (default: the environment's `mapHeadroom`). Every handle of the store in this
    /// process goes on working on the new file; the call waits until none of their transactions
    /// is open.
    ///
    /// - Throws: `CompactionError.openInAnotherProcess` when another process has the store open,
    ///   `CompactionError.readOnly`; `LMDBError` when the copy or the rename fails (the store is
    ///   then as it was).
    @discardableResult
    public func compact(headroom: Int? = nil, progress: (CompactionStep) -> Void = { _ in }) throws -> CompactionResult
    {
        try environment.compact(headroom: headroom, progress: progress)
    }

    /// Compacts the store in `directory` without opening it (`Environment.compact(directory:headroom:progress:)`):
    /// nothing is written unless the compaction goes ahead; when this process has the store
    /// open, its open environment is compacted and its handles go on with the new file.
    @discardableResult
    public static func compact(
        directory: String, headroom: Int, progress: (CompactionStep) -> Void = { _ in }
    ) throws -> CompactionResult {
        try Environment.compact(directory: directory, headroom: headroom, progress: progress)
    }
}
