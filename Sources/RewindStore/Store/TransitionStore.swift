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
        configuration.environment.maxDatabases = max(configuration.environment.maxDatabases,
                                                     StoreLayout.minimumDatabases)
        let opened = configuration.readOnly
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

    // MARK: Opening

    /// An open environment with the store's databases, format and id.
    private struct OpenedStore {
        var environment: Environment
        var databases: StoreDatabases
        var format: UInt32
        var storeID: UUID
    }

    /// Opens an existing store of the current format without creating or writing anything.
    private static func openReadOnlyStore(_ directory: String, configuration: EnvironmentConfiguration) throws -> OpenedStore {
        let environment = try openReadOnly(directory, configuration: configuration)
        do {
            let (databases, format, storeID) = try readOnlyDatabases(environment, path: directory)
            return OpenedStore(environment: environment, databases: databases, format: format, storeID: storeID)
        } catch {
            environment.close()
            throw error
        }
    }

    /// Opens the store in `directory` for writing, creating it when the directory does not exist
    /// or is empty, and migrating an older format.
    private static func openWritableStore(
        _ directory: String, configuration: inout StoreConfiguration
    ) throws -> OpenedStore {
        // Every process opens a store the same way (LMDB asks that processes sharing an
        // environment agree on MDB_WRITEMAP): commits write into the map, no page copies and, in
        // no-sync mode, no system call per commit. Durable commits stay msync-then-meta; the map
        // is reserved on disk, so a full disk fails a write instead of crashing (Linux only).
        configuration.environment.options.insert(.writeMap)
        let isNew = try prepareDirectory(directory)
        let environment: Environment
        do {
            environment = try Environment(directory: directory, configuration: configuration.environment)
        } catch let error as LMDBError where error.code == LMDBError.Code.invalid {
            // A data file whose first page is blank but that nobody is creating (see
            // `metaPagesAreBlank`): not an LMDB environment after all.
            throw StoreError.notAStore(path: directory, reason: "LMDB cannot read it as a store (\(error.message))",
                cause: ErrorCause(error))
        }
        do {
            if !isNew {
                // Existing store: check the format before creating or writing anything.
                let metaDatabase: Database
                do {
                    metaDatabase = try environment.database(named: StoreLayout.meta, create: false)
                } catch let error as LMDBError where error.isNotFound {
                    guard try isBeingCreated(environment) else {
                        throw StoreError.notAStore(path: directory, reason: "it has no '\(StoreLayout.meta)' database")
                    }
                    metaDatabase = try environment.database(named: StoreLayout.meta, create: true)
                }
                _ = try environment.read { txn in
                    // An empty `meta`: a store another process is creating (see prepareDirectory).
                    if try txn.statistics(of: metaDatabase).entries == 0 { return StoreLayout.formatVersion }
                    return try readFormat(txn, meta: metaDatabase, path: directory)
                }
            }
            let databases = try StoreDatabases(environment.databases(named: StoreLayout.allDatabases, create: true))
            let (format, storeID) = try environment.write { txn in
                try initializeMetadata(txn, databases: databases, path: directory)
            }
            return OpenedStore(environment: environment, databases: databases, format: format, storeID: storeID)
        } catch {
            environment.close()
            throw error
        }
    }

    /// Opens the environment of an existing store read-only.
    private static func openReadOnly(_ directory: String, configuration: EnvironmentConfiguration) throws -> Environment {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw StoreError.notAStore(path: directory, reason: "it does not exist (a read-only open creates nothing)")
        }
        guard isDirectory.boolValue else {
            throw StoreError.notAStore(path: directory, reason: "it is not a directory")
        }
        guard FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("data.mdb")) else {
            throw StoreError.notAStore(path: directory, reason: "it has no LMDB data file (data.mdb)")
        }
        do {
            return try Environment(directory: directory, configuration: configuration)
        } catch let error as LMDBError where error.code == LMDBError.Code.invalid {
            throw StoreError.notAStore(path: directory, reason: "LMDB cannot read it as a store (\(error.message))",
                cause: ErrorCause(error))
        }
    }

    /// The databases, format and id of a store opened read-only: all must exist, in the current
    /// format (an older store is migrated by its first read-write open).
    private static func readOnlyDatabases(
        _ environment: Environment, path: String
    ) throws -> (StoreDatabases, UInt32, UUID) {
        let meta: Database
        do {
            meta = try environment.database(named: StoreLayout.meta, create: false)
        } catch let error as LMDBError where error.isNotFound {
            throw StoreError.notAStore(path: path, reason: "it has no '\(StoreLayout.meta)' database")
        }
        let (format, storeID) = try environment.read { txn -> (UInt32, UUID) in
            if try txn.statistics(of: meta).entries == 0 {
                throw StoreError.notAStore(path: path, reason: "its metadata is not written yet (a store being created)")
            }
            let format = try readFormat(txn, meta: meta, path: path)
            return (format, try readStoreID(txn, meta: meta))
        }
        guard format == StoreLayout.formatVersion else {
            throw StoreError.needsWriteAccess(
                path: path, reason: "it is in store format \(format); open it for writing once to migrate it to format "
                    + "\(StoreLayout.formatVersion)")
        }
        do {
            let databases = try StoreDatabases(environment.databases(named: StoreLayout.allDatabases, create: false))
            return (databases, format, storeID)
        } catch let error as LMDBError where error.isNotFound {
            throw StoreError.needsWriteAccess(
                path: path, reason: "some of its databases do not exist yet; open it for writing once to create them")
        }
    }

    /// Creates the directory when it is missing; returns whether the store is new. Throws
    /// ``StoreError/notAStore(path:reason:)`` for a non-store, having changed nothing.
    private static func prepareDirectory(_ directory: String) throws -> Bool {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if !files.fileExists(atPath: directory, isDirectory: &isDirectory) {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return true
        }
        guard isDirectory.boolValue else {
            throw StoreError.notAStore(path: directory, reason: "it is not a directory")
        }
        if Environment.isOpen(directory: directory) { return false }
        let contents = try files.contentsOfDirectory(atPath: directory)
        if contents.isEmpty { return true }
        // Only LMDB's lock file: another process is creating the store (LMDB makes it first).
        if contents == ["lock.mdb"] { return true }
        guard contents.contains("data.mdb") else {
            throw StoreError.notAStore(path: directory, reason: "it has files but no LMDB data file (data.mdb)")
        }
        let dataFile = (directory as NSString).appendingPathComponent("data.mdb")
        if let size = (try? files.attributesOfItem(atPath: dataFile))?[.size] as? NSNumber, size.intValue == 0 {
            // Another process has just created the environment and not yet written its first pages.
            return true
        }
        if try metaPagesAreBlank(dataFile) {
            // With a writable map the file is sized to the map before LMDB writes its meta pages:
            // another process is creating the environment right now.
            return true
        }
        // Look without touching: read-only, and no lock file created. When the lock file exists a
        // process may be writing the environment right now (creating the store, say): read through
        // LMDB's locking then, or a lock-free read may see pages that writer is reusing.
        do {
            let sharingLock = contents.contains("lock.mdb")
            return try Environment.inspect(directory: directory, sharingLock: sharingLock) { environment in
                let meta: Database
                do {
                    meta = try environment.database(named: StoreLayout.meta, create: false)
                } catch let error as LMDBError where error.isNotFound {
                    // An environment with no database at all holds nothing: it is a store another
                    // process is creating right now (its first write transaction, which creates
                    // the metadata, has not committed yet). Creating it here too is safe: that
                    // transaction and ours are serialised by LMDB, and the second one finds the
                    // metadata written.
                    if try isBeingCreated(environment) { return true }
                    throw StoreError.notAStore(path: directory, reason: "it has no '\(StoreLayout.meta)' database")
                }
                return try environment.read { txn in
                    // The store's databases are created before its metadata is written: an empty
                    // `meta` is a store being created, as above.
                    if try txn.statistics(of: meta).entries == 0 { return true }
                    _ = try readFormat(txn, meta: meta, path: directory)
                    return false
                }
            }
        } catch let error as LMDBError {
            throw StoreError.notAStore(path: directory, reason: "LMDB cannot read it as a store (\(error.message))",
                cause: ErrorCause(error))
        }
    }

    /// Whether the data file starts with a page of zeros (LMDB's meta pages not written yet).
    private static func metaPagesAreBlank(_ dataFile: String) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: dataFile) else { return false }
        defer { try? handle.close() }
        guard let head = try handle.read(upToCount: 4096), !head.isEmpty else { return false }
        return head.allSatisfy { $0 == 0 }
    }

    /// Whether an environment without a `meta` database is a store that another process is
    /// creating right now: its only named databases (if any) are the store's own, all empty.
    /// (The databases are created before the metadata is written.) Its names are read in a later
    /// transaction than the one that missed `meta`: when `meta` is among them now, the other
    /// process has created the store since, and it is opened as one.
    private static func isBeingCreated(_ environment: Environment) throws -> Bool {
        let main = try environment.database(named: nil, create: false)
        let ours = Set(StoreLayout.allDatabases)
        let names: [String] = try environment.read { txn in
            var names: [String] = []
            try txn.forEach(in: main) { key, _ in
                names.append(String(decoding: key, as: UTF8.self))
                return names.count > ours.count ? .stop : .next
            }
            return names
        }
        guard names.allSatisfy({ ours.contains($0) }) else { return false }
        if names.contains(StoreLayout.meta) { return true }
        for name in names {
            let database = try environment.database(named: name, create: false)
            if try environment.read({ try $0.statistics(of: database).entries }) != 0 {
                // Data without metadata is not a store, unless the metadata has appeared since.
                return try hasMeta(environment)
            }
        }
        return true
    }

    /// Whether the environment has a `meta` database now.
    private static func hasMeta(_ environment: Environment) throws -> Bool {
        do {
            _ = try environment.database(named: StoreLayout.meta, create: false)
            return true
        } catch let error as LMDBError where error.isNotFound {
            return false
        }
    }

    /// The store format in `meta`; throws when it is missing or newer than supported.
    private static func readFormat(_ txn: ReadTransaction, meta: Database, path: String) throws -> UInt32 {
        guard let bytes = try txn.get(StoreLayout.formatVersionKey, in: meta) else {
            throw StoreError.notAStore(path: path, reason: "its metadata has no format version")
        }
        guard bytes.count == 4 else {
            throw StoreError.corruptedEntry(database: StoreLayout.meta, key: "'format-version'",
                                            reason: "\(bytes.count) bytes instead of 4")
        }
        let format = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard format <= StoreLayout.formatVersion else {
            throw StoreError.unsupportedFormat(found: format, supported: StoreLayout.formatVersion)
        }
        return format
    }

    /// Writes the metadata of a new store (format, id, creation time) or reads an existing one's,
    /// migrating a store of an older format (see ``StoreMigration``).
    private static func initializeMetadata(
        _ txn: WriteTransaction, databases: StoreDatabases, path: String
    ) throws -> (UInt32, UUID) {
        let meta = databases.meta
        if try txn.get(StoreLayout.formatVersionKey, in: meta) == nil {
            let id = UUID()
            let format = StoreLayout.formatVersion
            try txn.put(withUnsafeBytes(of: format.bigEndian) { Array($0) }, forKey: StoreLayout.formatVersionKey, in: meta)
            try txn.put(withUnsafeBytes(of: id.uuid) { Array($0) }, forKey: StoreLayout.storeIDKey, in: meta)
            var created: [UInt8] = []
            created.putLittleEndian(Timestamp.now().microsecondsSince1970)
            try txn.put(created, forKey: StoreLayout.createdKey, in: meta)
            try txn.put(StoreKey.uint64(0), forKey: StoreLayout.sessionsThroughKey, in: meta)
            return (format, id)
        }
        var format = try readFormat(txn, meta: meta, path: path)
        if format < StoreLayout.formatVersion {
            format = try StoreMigration.migrate(txn, databases: databases, from: format)
        }
        return (format, try readStoreID(txn, meta: meta))
    }

    /// The store id in `meta`.
    private static func readStoreID(_ txn: ReadTransaction, meta: Database) throws -> UUID {
        guard let idBytes = try txn.get(StoreLayout.storeIDKey, in: meta), idBytes.count == 16 else {
            throw StoreError.corruptedEntry(database: StoreLayout.meta, key: "'store-id'", reason: "missing or not 16 bytes")
        }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: idBytes) }
        return UUID(uuid: uuid)
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
    public func write<R>(_ body: (StoreWriteTransaction) throws -> R) throws -> R {
        let maximumTail = UInt64(max(0, configuration.maximumSessionTail))
        let (result, tail) = try environment.write { txn in
            let transaction = StoreWriteTransaction(
                transaction: txn, databases: databases, tailCache: tailCache)
            let result = try body(transaction)
            try transaction.writeTailIfLonger(than: maximumTail)
            return (result, transaction.loadedTail)
        }
        // Committed: the transaction's tail is now the store's (an aborted one's is read again).
        if let tail { tailCache.offer(tail) }
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
}
