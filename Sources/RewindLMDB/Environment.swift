import CLMDB
import Synchronization

/// An open LMDB environment: one directory holding `data.mdb` and `lock.mdb`, with its named
/// databases.
///
/// Work happens in scoped transactions: ``read(_:)`` gives a consistent snapshot, ``write(_:)``
/// a serialised read-write transaction that commits when the closure returns and aborts when it
/// throws. No LMDB pointer escapes a transaction.
///
/// ```swift
/// let env = try Environment(directory: "/tmp/db")
/// let names = try env.database(named: "names")
/// try env.write { txn in try txn.put(Array("Ada".utf8), forKey: [1], in: names) }
/// let name = try env.read { txn in try txn.get([1], in: names) }
/// ```
///
/// **One environment per directory per process.** LMDB forbids opening an environment twice in
/// one process, so every `Environment` of the same directory (by canonical path) shares one
/// `MDB_env`, reference counted; the last ``close()`` (or deinit) closes it. Later opens share the
/// first open's configuration, except how commits flush (LMDB's flags are per `MDB_env`): the
/// strongest level any open, writable handle asks for applies to every commit of the process —
/// durable (no option) over ``EnvironmentOptions/noMetaSync`` over ``EnvironmentOptions/noSync``
/// — so each handle gets at least the durability it asked for; when the handle asking for the
/// strongest closes, the others' strongest applies again (``syncOptions``). Other processes have
/// flags of their own.
///
/// **Threads.** The environment is opened with `MDB_NOTLS`, so read transactions may be used from
/// any thread; a write closure is synchronous and runs begin…commit on the calling thread, as
/// LMDB's writer lock requires. Reads may nest (a read inside a read or a write). A write inside
/// a write of the same environment on the same thread throws (LMDB's writer lock is not
/// re-entrant); a write inside a read works until it has to grow the map, which waits for every
/// open transaction: it then throws instead of deadlocking, so prefer not to write inside reads.
///
/// **Map growth.** A write that hits `MDB_MAP_FULL` is aborted, the map grows (doubled while
/// smaller than ``EnvironmentConfiguration/mapHeadroom``, by that much after it; up to
/// ``EnvironmentConfiguration/maximumMapSize``) once no transaction is open, and the **whole
/// write closure runs again**: write closures must be safe to run more than once. A write that
/// does not fit in the maximum size throws an ``LMDBError`` with code `MDB_MAP_FULL`.
public final class Environment: Sendable {
    // Concurrency: `shared` is immutable and internally synchronised (see SharedEnvironment);
    // `isClosed` is a mutex.
    let shared: SharedEnvironment
    /// Whether this handle holds a reference in the process-wide registry (inspection handles don't).
    private let isRegistered: Bool
    /// The sync level this handle asked for (`nil`: read-only, or not registered).
    private let syncRequest: SyncLevel?
    /// Whether ``close()`` was called.
    private let isClosed = Mutex(false)

    /// Opens (creating its files if needed) the environment in `directory`, which must exist.
    ///
    /// The data file is checked against LMDB's meta pages before anything maps it: a truncated
    /// or damaged file throws ``DataFileError`` (naming the file, what was expected and what was
    /// found) instead of crashing the process. With ``EnvironmentOptions/readOnly`` nothing is
    /// created or written. Stale reader slots left by dead processes are cleared
    /// (`mdb_reader_check`).
    ///
    /// When this process has the directory open already, the handle shares that environment; if
    /// `configuration` asks for commits that flush more (see ``syncOptions``), every commit of
    /// the environment flushes that much from now on, and what was committed so far is flushed
    /// first.
    /// - Throws: ``DataFileError`` for a damaged data file (or, read-only, a missing or empty
    ///   one); ``LMDBError`` when the directory does not exist or LMDB cannot open it, or when a
    ///   stronger sync level is asked for from inside a transaction of the open environment.
    public init(directory: String, configuration: EnvironmentConfiguration = EnvironmentConfiguration()) throws {
        let path = try canonicalPath(directory)
        let sync = configuration.options.contains(.readOnly) ? nil : SyncLevel(configuration.options)
        shared = try EnvironmentRegistry.shared.acquire(path: path, configuration: configuration, sync: sync)
        syncRequest = sync
        isRegistered = true
    }

    init(shared: SharedEnvironment, isRegistered: Bool) {
        self.shared = shared
        self.isRegistered = isRegistered
        self.syncRequest = nil
    }

    deinit {
        close()
    }

    /// The canonical path of the environment's directory.
    public var path: String { shared.path }

    /// The configuration the environment was opened with (the first open's, when shared).
    public var configuration: EnvironmentConfiguration { shared.configuration }

    /// How this process's commits of the environment flush now, read from LMDB's flags: empty
    /// (durable: data, then the meta page), ``EnvironmentOptions/noMetaSync`` or
    /// ``EnvironmentOptions/noSync``. The strongest level asked for by the open, writable
    /// handles of the directory in this process (see "One environment per directory per
    /// process" above), so it can be stronger than this handle's configuration.
    public var syncOptions: EnvironmentOptions {
        get throws {
            try ensureOpen("mdb_env_get_flags")
            return try shared.accessLock.withSharedAccess {
                try ensureEnvironmentOpen("mdb_env_get_flags")
                return shared.currentSyncOptions()
            }
        }
    }

    /// Whether another `Environment` of the same directory is open in this process.
    public static func isOpen(directory: String) -> Bool {
        guard let path = try? canonicalPath(directory),
            let shared = EnvironmentRegistry.shared.acquireIfOpen(path: path)
        else { return false }
        EnvironmentRegistry.shared.release(shared, sync: nil)
        return true
    }

    /// Releases this handle; the last handle of a directory closes the environment, after every
    /// open transaction has finished. Later use of this handle throws. Calling it twice is harmless.
    public func close() {
        let wasOpen = isClosed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if wasOpen && isRegistered {
            EnvironmentRegistry.shared.release(shared, sync: syncRequest)
        }
    }

    private func ensureOpen(_ operation: @autoclosure () -> String) throws {
        let closed = isClosed.withLock { $0 }
        if closed {
            throw LMDBError.misuse(operation(), "the environment of '\(path)' is closed")
        }
    }

    /// Checks, under `accessLock`, that the shared `MDB_env` has not been closed in the meantime
    /// (another thread may release the last handle between ``ensureOpen(_:)`` and the lock).
    private func ensureEnvironmentOpen(_ operation: @autoclosure () -> String) throws {
        if shared.isClosed {
            throw LMDBError.misuse(operation(), "the environment of '\(path)' is closed")
        }
    }

    // MARK: Databases

    /// The handle of the named database `name` (or of the main database when `name` is `nil`),
    /// creating the database when `create` is true and it does not exist yet.
    ///
    /// Handles are cached: later calls with the same name return the same handle.
    /// - Throws: ``LMDBError`` with code `MDB_NOTFOUND` when it does not exist and `create` is
    ///   false, `MDB_DBS_FULL` when ``EnvironmentConfiguration/maxDatabases`` is reached.
    public func database(named name: String?, create: Bool = true) throws -> Database {
        try ensureOpen("opening database '\(name ?? "main")'")
        return try shared.databases.withLock { table in
            if let name, let cached = table.named[name] { return cached }
            if name == nil, let cached = table.main { return cached }
            let database: Database
            if create {
                database = try write { txn in try txn.openDatabase(named: name, create: true) }
            } else {
                database = try readCommitting { txn in try txn.openDatabase(named: name, create: false) }
            }
            if let name { table.named[name] = database } else { table.main = database }
            return database
        }
    }

    /// The handles of several databases, opened (and created when `create` is true and they are
    /// missing) in a single transaction. Handles are cached like those of ``database(named:create:)``.
    public func databases(named names: [String], create: Bool = true) throws -> [String: Database] {
        try ensureOpen("opening databases \(names)")
        return try shared.databases.withLock { table in
            let missing = names.filter { table.named[$0] == nil }
            if !missing.isEmpty {
                let opened: [Database]
                if create {
                    opened = try write { txn in try missing.map { try txn.openDatabase(named: $0, create: true) } }
                } else {
                    opened = try readCommitting { txn in
                        try missing.map { try txn.openDatabase(named: $0, create: false) }
                    }
                }
                for database in opened {
                    if let name = database.name { table.named[name] = database }
                }
            }
            var result: [String: Database] = [:]
            for name in names { result[name] = table.named[name] }
            return result
        }
    }

    // MARK: Transactions

    /// Runs `body` in a read-only transaction: a consistent snapshot of the last commit, unaffected
    /// by writes that commit while it runs. The transaction ends when `body` returns.
    public func read<R>(_ body: (ReadTransaction) throws -> R) throws -> R {
        try runRead(commit: false, body)
    }

    /// A read transaction that commits instead of aborting, so database handles it opens survive.
    func readCommitting<R>(_ body: (ReadTransaction) throws -> R) throws -> R {
        try runRead(commit: true, body)
    }

    private func runRead<R>(commit: Bool, _ body: (ReadTransaction) throws -> R) throws -> R {
        try ensureOpen("beginning a read transaction")
        while true {
            let outcome: Outcome<R> = try shared.accessLock.withSharedAccess {
                try ensureEnvironmentOpen("mdb_txn_begin (read)")
                var pointer: OpaquePointer?
                let code = mdb_txn_begin(shared.pointer, nil, UInt32(MDB_RDONLY), &pointer)
                if code == LMDBError.Code.mapResized.rawValue { return .mapResized }
                try LMDBError.check(code, "mdb_txn_begin (read) in '\(path)'")
                guard let pointer else {
                    throw LMDBError.misuse("mdb_txn_begin (read) in '\(path)'", "LMDB returned no transaction")
                }
                let txn = ReadTransaction(pointer: pointer, environment: shared)
                defer { txn.finish() }
                let result: R
                do {
                    result = try body(txn)
                } catch {
                    mdb_txn_abort(pointer)
                    throw error
                }
                if commit {
                    try LMDBError.check(mdb_txn_commit(pointer), "mdb_txn_commit (read) in '\(path)'")
                } else {
                    mdb_txn_abort(pointer)
                }
                return .done(result)
            }
            switch outcome {
            case .done(let result): return result
            case .mapResized: try shared.adoptResizedMap()
            case .mapFull, .mapUnreserved: continue
            }
        }
    }

    /// Runs `body` in a read-write transaction and commits it when `body` returns; when `body`
    /// throws, the transaction is aborted and the error rethrown. Only one write transaction runs
    /// at a time (LMDB's writer lock); others wait.
    ///
    /// When the write hits `MDB_MAP_FULL` (in a put or at commit), it is aborted, the map grows and
    /// `body` **runs again from the start**, so `body` must not have side effects outside the
    /// transaction that cannot be repeated.
    ///
    /// Specialized for `Void` (the store's commits), exported to the callers in other modules:
    /// unspecialized, every commit looked `Outcome<R>` up in the runtime's metadata cache.
    @_specialize(exported:true,kind:full,where R == Void)
    public func write<R>(_ body: (WriteTransaction) throws -> R) throws -> R {
        try ensureOpen("beginning a write transaction")
        if shared.isReadOnly {
            throw LMDBError(
                code: LMDBError.Code.readOnly, operation: "beginning a write transaction in '\(path)'",
                message: "the environment is open read-only")
        }
        if shared.writeDepth.value > 0 {
            // LMDB's writer mutex is not re-entrant: a nested write would deadlock.
            throw LMDBError.misuse(
                "beginning a write transaction in '\(path)'",
                "the calling thread is already inside a write transaction of this environment")
        }
        while true {
            var failedMapSize = 0
            let outcome: Outcome<R> = try shared.accessLock.withSharedAccess {
                try ensureEnvironmentOpen("mdb_txn_begin (write)")
                if shared.mapUnreserved { return .mapUnreserved }
                var pointer: OpaquePointer?
                let code = mdb_txn_begin(shared.pointer, nil, 0, &pointer)
                if code == LMDBError.Code.mapResized.rawValue { return .mapResized }
                try LMDBError.check(code, "mdb_txn_begin (write) in '\(path)'")
                guard let pointer else {
                    throw LMDBError.misuse("mdb_txn_begin (write) in '\(path)'", "LMDB returned no transaction")
                }
                let txn = WriteTransaction(pointer: pointer, environment: shared)
                shared.writeDepth.value = 1
                defer {
                    shared.writeDepth.value = 0
                    txn.finish()
                }
                let result: R
                do {
                    result = try body(txn)
                } catch {
                    if txn.hitMapFull {  // this transaction's own put hit MDB_MAP_FULL
                        failedMapSize = shared.currentMapSize()
                        mdb_txn_abort(pointer)
                        return .mapFull
                    }
                    mdb_txn_abort(pointer)
                    throw error
                }
                if txn.hitMapFull {
                    // The closure swallowed an MDB_MAP_FULL: the transaction is unusable; retry.
                    failedMapSize = shared.currentMapSize()
                    mdb_txn_abort(pointer)
                    return .mapFull
                }
                let commitCode = mdb_txn_commit(pointer)  // frees the transaction, even on failure
                if commitCode == LMDBError.Code.mapFull.rawValue {
                    failedMapSize = shared.currentMapSize()
                    return .mapFull
                }
                if commitCode != 0 {
                    throw shared.diskFullError(commitCode, operation: "mdb_txn_commit in '\(path)'")
                        ?? LMDBError(code: commitCode, operation: "mdb_txn_commit in '\(path)'")
                }
                return .done(result)
            }
            switch outcome {
            case .done(let result): return result
            case .mapFull: try shared.growMap(after: failedMapSize)
            case .mapResized: try shared.adoptResizedMap()
            case .mapUnreserved: try shared.reserveAdoptedMap()
            }
        }
    }

    private enum Outcome<R> {
        case done(R)
        case mapFull
        case mapResized
        /// The writable map grew (by another process) beyond what could be reserved on disk.
        case mapUnreserved
    }

    // MARK: Maintenance

    /// Flushes the data buffers to disk (`mdb_env_sync`). Needed only with
    /// ``EnvironmentOptions/noSync`` or ``EnvironmentOptions/noMetaSync``; `force` flushes even
    /// when the environment was opened with those options.
    public func sync(force: Bool = true) throws {
        try ensureOpen("mdb_env_sync")
        try shared.accessLock.withSharedAccess {
            try ensureEnvironmentOpen("mdb_env_sync")
            try LMDBError.check(mdb_env_sync(shared.pointer, force ? 1 : 0), "mdb_env_sync in '\(path)'")
        }
    }

    /// The environment's statistics: map size, page size, used pages, entries of the main database.
    public func statistics() throws -> EnvironmentStatistics {
        try ensureOpen("mdb_env_stat")
        return try shared.accessLock.withSharedAccess {
            try ensureEnvironmentOpen("mdb_env_stat")
            var info = MDB_envinfo()
            var stat = MDB_stat()
            try LMDBError.check(mdb_env_info(shared.pointer, &info), "mdb_env_info in '\(path)'")
            try LMDBError.check(mdb_env_stat(shared.pointer, &stat), "mdb_env_stat in '\(path)'")
            return EnvironmentStatistics(
                mapSize: info.me_mapsize,
                pageSize: Int(stat.ms_psize),
                usedPages: info.me_last_pgno + 1,
                entries: Int(stat.ms_entries),
                lastTransactionID: info.me_last_txnid,
                maxReaders: Int(info.me_maxreaders),
                readersInUse: Int(info.me_numreaders))
        }
    }

    /// Opens `directory` read-only without touching it (no lock file is created, nothing is
    /// written) and hands the read-only environment to `body`, closing it afterwards. When this
    /// process already has the directory open, the open environment is handed over instead.
    ///
    /// Meant for inspecting a directory before deciding to open it for writing.
    ///
    /// - Parameters:
    ///   - directory: the environment's directory.
    ///   - sharingLock: take part in LMDB's locking through the directory's existing lock file
    ///     (`lock.mdb`): read transactions register as readers, so a process writing the
    ///     environment at the same time cannot reuse the pages they read, and they see only
    ///     committed states. Pass `true` whenever the lock file exists (some process opened the
    ///     environment for writing, and may be writing it now); without it reads are lock-free and
    ///     only safe when nobody writes. Either way no file is created.
    ///   - checkingPages: check the data file's pages first (``EnvironmentOptions/checkPages``).
    ///   - body: reads the environment; its result is returned.
    public static func inspect<R>(
        directory: String, sharingLock: Bool = false, checkingPages: Bool = false, _ body: (Environment) throws -> R
    ) throws -> R {
        let path = try canonicalPath(directory)
        if let shared = EnvironmentRegistry.shared.acquireIfOpen(path: path) {
            let environment = Environment(shared: shared, isRegistered: true)
            defer { environment.close() }
            return try body(environment)
        }
        var configuration = EnvironmentConfiguration(mapSize: 0, maxDatabases: 64)
        configuration.options = sharingLock ? [.readOnly] : [.readOnly, .noLock]
        if checkingPages { configuration.options.insert(.checkPages) }
        let shared = try SharedEnvironment(path: path, configuration: configuration)
        defer { shared.close() }
        let environment = Environment(shared: shared, isRegistered: false)
        defer { environment.close() }
        return try body(environment)
    }
}
