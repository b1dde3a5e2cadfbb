import CLMDB
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One open `MDB_env`, shared by every ``Environment`` handle of the same directory in this
/// process (LMDB forbids opening one environment twice in a process).
///
/// Concurrency: `path` and `configuration` are immutable. `accessLock` is held shared by every
/// transaction (read or write) for its whole life and exclusively by map resizes, by a compaction
/// (which replaces `pointer`, `opening`, `usesWriteMap` and `dataFileLock`) and by the final close, because
/// `mdb_env_set_mapsize`, `mdb_env_close` and replacing the data file need that no transaction of
/// this process is open. `databases` (a mutex holding the handle table) also serialises
/// `mdb_dbi_open`, which LMDB forbids from concurrent transactions; `sync` holds the sync levels
/// asked for and applied. `referenceCount` is guarded by the registry's lock.
/// (`@unchecked Sendable` for what `accessLock`, a reader-writer lock, and the registry's lock
/// guard — `pointer`, `opening`, `isClosed`, `usesWriteMap`, `dataFileLock`, `referenceCount` — which the
/// compiler cannot see; the state behind a `Mutex` is inside it.)
final class SharedEnvironment: @unchecked Sendable {
    /// The open `MDB_env`; replaced only by a compaction (under exclusive access), which reopens
    /// the environment on the compacted data file.
    var pointer: OpaquePointer
    let path: String
    let configuration: EnvironmentConfiguration
    /// A number unique to this open environment in the process, so that a ``Database`` handle of
    /// another (or an earlier) environment is detected instead of reaching LMDB.
    let serial: UInt64
    /// A number unique in the process to this opening of the data file: a compaction reopens the
    /// environment on a new file, whose LMDB transaction ids start again (see ``CommitID``).
    var opening: UInt64
    let accessLock = ReadWriteLock()
    /// The handles of the databases opened so far.
    struct DatabaseTable {
        var named: [String: Database] = [:]
        var main: Database?
    }

    /// The database handles; holding it also serialises `mdb_dbi_open`.
    let databases = Mutex(DatabaseTable())
    var referenceCount = 0
    /// Written under `accessLock`'s exclusive access, read under its shared access.
    var isClosed = false

    /// The sync levels asked for and the one applied.
    struct SyncState {
        /// How many open handles asked for each sync level (read-only handles ask for none).
        var requests: [SyncLevel: Int] = [:]
        /// The sync level LMDB applies now (its flags); changed only under exclusive access.
        var applied: SyncLevel

        /// The strongest level an open handle asks for (`nil` when none asks).
        var strongestRequest: SyncLevel? { requests.keys.max() }
    }

    /// The sync levels (taken after `accessLock`, never before it).
    let sync: Mutex<SyncState>

    /// Opens the environment in the existing directory `path` (already canonical).
    ///
    /// The data file is checked against its meta pages first (``DataFileCheck``), before LMDB maps
    /// it and before the writable map's reservation grows it: a truncated file throws
    /// ``DataFileError`` instead of crashing the process when a page past its end is read. A
    /// read-only open also needs an existing, non-empty data file, and takes part in LMDB's
    /// locking only when it can write the lock file (see ``EnvironmentOptions/readOnly``).
    /// ``EnvironmentOptions/checkPages`` checks every page LMDB could read (``PageCheck``), and
    /// ``EnvironmentOptions/refuseBlankDataFile`` refuses an empty data file, before LMDB opens it.
    /// The open holds a shared ``DataFileLock`` until ``close()``, so it waits while another
    /// process compacts the environment, and no process compacts it while it is open.
    init(path: String, configuration: EnvironmentConfiguration) throws {
        let opened = try Self.openEnvironment(path: path, configuration: configuration, mapSize: configuration.mapSize)
        self.pointer = opened.pointer
        self.dataFileLock = opened.lock
        self.sync = Mutex(SyncState(applied: SyncLevel(opened.options)))
        self.usesWriteMap = opened.options.contains(.writeMap)
        self.isReadOnly = opened.options.contains(.readOnly)
        self.serial = SharedEnvironment.nextSerial()
        self.opening = SharedEnvironment.nextSerial()
        self.path = path
        self.configuration = configuration
    }

    /// An `MDB_env` opened by ``openEnvironment(path:configuration:mapSize:)``.
    struct OpenedEnvironment {
        var pointer: OpaquePointer
        /// The options it was opened with (``EnvironmentOptions/writeMap`` removed when the map
        /// could not be reserved on disk).
        var options: EnvironmentOptions
        /// The shared lock on its data file (`nil` where `flock` is not available).
        var lock: DataFileLock?
    }

    /// Opens the `MDB_env` of `path` with a map of at least `mapSize` bytes (see ``init(path:configuration:)``).
    static func openEnvironment(
        path: String, configuration: EnvironmentConfiguration, mapSize: Int
    ) throws -> OpenedEnvironment {
        var options = configuration.options
        // Wait for a compaction in progress, and keep other processes from compacting while open.
        var lock = try DataFileLock.shared(directory: path)
        let state = try DataFileCheck.check(directory: path)
        let dataFile = path + "/data.mdb"
        if state == .blank && (options.contains(.readOnly) || options.contains(.refuseBlankDataFile)) {
            throw DataFileError(
                path: dataFile, expected: "LMDB's two meta pages",
                found: "an empty file, or zeros where they belong")
        }
        if state == .valid && options.contains(.checkPages) {
            try PageCheck.check(directory: path)
        }
        if options.contains(.readOnly) {
            options.remove(.writeMap)
            if state == .absent {
                throw DataFileError(path: dataFile, expected: "an LMDB data file", found: "no file")
            }
            // Without a writable lock file (read-only media or files, or none at all: no process
            // has the store open for writing) read without LMDB's locks, creating nothing.
            if access(path + "/lock.mdb", W_OK) != 0 { options.insert(.noLock) }
        }
        if !MapReservation.isSupported { options.remove(.writeMap) }
        var env = try Self.open(path: path, configuration: configuration, mapSize: mapSize, options: options)
        if options.contains(.writeMap) && MapReservation.reserve(env, bytes: Self.mapSize(of: env)) != 0 {
            // No room on the disk for the whole map: a writable map over a sparse file would crash
            // the process (SIGBUS) when the disk fills, so this process writes through `pwrite`.
            mdb_env_close(env)
            options.remove(.writeMap)
            env = try Self.open(path: path, configuration: configuration, mapSize: mapSize, options: options)
        }
        if lock == nil {
            // A new environment: LMDB has just created its data file.
            lock = try? DataFileLock.shared(directory: path)
        }
        if lock != nil && !options.contains(.readOnly) {
            // A compaction killed before it renamed its copy left it: no compaction runs while
            // this process holds its shared lock, so nothing is writing it.
            unlink(path + "/" + Compaction.temporaryFileName)
        }
        return OpenedEnvironment(pointer: env, options: options, lock: lock)
    }

    /// Whether this process writes through a writable map (``EnvironmentOptions/writeMap``, with
    /// the whole map reserved on disk). Changed only by a compaction, under exclusive access.
    var usesWriteMap: Bool
    /// Whether the environment is open read-only (``EnvironmentOptions/readOnly``).
    let isReadOnly: Bool
    /// Set (under exclusive access) when a map grown by another process could not be reserved on
    /// disk: writes refuse until it can be (read under shared access).
    var mapUnreserved = false
    /// The shared lock on the data file, held while the environment is open (replaced by a
    /// compaction, released by ``close()``; both under exclusive access).
    var dataFileLock: DataFileLock?

    private static func open(
        path: String, configuration: EnvironmentConfiguration, mapSize requested: Int, options: EnvironmentOptions
    ) throws -> OpaquePointer {
        var env: OpaquePointer?
        try LMDBError.check(mdb_env_create(&env), "mdb_env_create for '\(path)'")
        guard let env else {
            throw LMDBError.misuse("mdb_env_create for '\(path)'", "LMDB returned no environment")
        }
        do {
            try LMDBError.check(
                mdb_env_set_maxdbs(env, MDB_dbi(configuration.maxDatabases)),
                "mdb_env_set_maxdbs(\(configuration.maxDatabases)) for '\(path)'")
            try LMDBError.check(
                mdb_env_set_maxreaders(env, UInt32(configuration.maxReaders)),
                "mdb_env_set_maxreaders(\(configuration.maxReaders)) for '\(path)'")
            // With a writable map LMDB sizes the data file to the map (`ftruncate`): a map smaller
            // than the file would shrink it under another process's larger map, whose writes past
            // the new end would then crash it (SIGBUS). So the map covers the whole file.
            let mapSize = options.contains(.writeMap) ? max(requested, Self.dataFileSize(in: path)) : requested
            try LMDBError.check(
                mdb_env_set_mapsize(env, mapSize),
                "mdb_env_set_mapsize(\(mapSize)) for '\(path)'")
            try LMDBError.check(
                mdb_env_open(env, path, options.lmdbFlags, mdb_mode_t(configuration.fileMode)),
                "mdb_env_open '\(path)'")
            if !options.contains(.noLock) {
                var dead: Int32 = 0
                try LMDBError.check(mdb_reader_check(env, &dead), "mdb_reader_check for '\(path)'")
            }
        } catch {
            mdb_env_close(env)
            throw error
        }
        return env
    }

    /// The size of the data file in the environment directory `path` (0 when there is none yet).
    static func dataFileSize(in path: String) -> Int {
        var status = stat()
        guard stat(path + "/data.mdb", &status) == 0 else { return 0 }
        return Int(status.st_size)
    }

    static func mapSize(of env: OpaquePointer) -> Int {
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        return info.me_mapsize
    }

    private static let lastSerial = Mutex<UInt64>(0)

    static func nextSerial() -> UInt64 {
        lastSerial.withLock { last in
            last += 1
            return last
        }
    }

    /// Closes the environment; waits until no transaction is open.
    /// Must not be called by a thread inside a transaction of this environment (the registry
    /// only closes when the last handle is released; a transaction keeps its handle alive).
    func close() {
        do {
            try accessLock.withExclusiveAccess(orThrow: { nestingError("closing the environment") }) {
                if !isClosed {
                    isClosed = true
                    mdb_env_close(pointer)
                    dataFileLock?.release()
                    dataFileLock = nil
                }
            }
        } catch {
            // Unreachable through the registry, which never closes from inside a transaction.
        }
    }

    /// Per thread: whether the thread is inside a write transaction of this environment.
    let writeDepth = ThreadLocalCounter()

    /// The error for an operation that needs every transaction of the environment closed, asked
    /// for from inside a transaction of the same thread.
    func nestingError(_ operation: String) -> LMDBError {
        LMDBError.misuse(
            operation + " of '\(path)'",
            "it must wait until no transaction is open, but the calling thread is inside a transaction "
                + "of this environment (do not write, or grow the map, inside a read closure)")
    }
}
