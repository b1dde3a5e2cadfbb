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
/// Concurrency: `pointer`, `path` and `configuration` are immutable. `accessLock` is held shared
/// by every transaction (read or write) for its whole life and exclusively by map resizes and by
/// the final close, because `mdb_env_set_mapsize` and `mdb_env_close` need that no transaction of
/// this process is open. `databaseLock` guards `databases` and serialises `mdb_dbi_open`, which
/// LMDB forbids from concurrent transactions. `referenceCount` is guarded by the registry's lock.
/// (`@unchecked Sendable`: those locks guard the mutable properties, which the compiler cannot
/// see; `syncLock` guards the sync level's.)
final class SharedEnvironment: @unchecked Sendable {
    let pointer: OpaquePointer
    let path: String
    let configuration: EnvironmentConfiguration
    /// A number unique to this open environment in the process, so that a ``Database`` handle of
    /// another (or an earlier) environment is detected instead of reaching LMDB.
    let serial: UInt64
    let accessLock = ReadWriteLock()
    let databaseLock = Mutex(())
    var databases: [String: Database] = [:]
    var mainDatabase: Database?
    var referenceCount = 0
    /// Written under `accessLock`'s exclusive access, read under its shared access.
    var isClosed = false
    /// Guards `syncRequests` and `appliedSync` (taken after `accessLock`, never before it).
    private let syncLock = Mutex(())
    /// How many open handles asked for each sync level (read-only handles ask for none).
    private var syncRequests: [SyncLevel: Int] = [:]
    /// The sync level LMDB applies now (its flags); changed only under exclusive access.
    private var appliedSync: SyncLevel

    /// Opens the environment in the existing directory `path` (already canonical).
    ///
    /// The data file is checked against its meta pages first (``DataFileCheck``), before LMDB maps
    /// it and before the writable map's reservation grows it: a truncated file throws
    /// ``DataFileError`` instead of crashing the process when a page past its end is read. A
    /// read-only open also needs an existing, non-empty data file, and takes part in LMDB's
    /// locking only when it can write the lock file (see ``EnvironmentOptions/readOnly``).
    init(path: String, configuration: EnvironmentConfiguration) throws {
        var options = configuration.options
        let state = try DataFileCheck.check(directory: path)
        if options.contains(.readOnly) {
            options.remove(.writeMap)
            let dataFile = path + "/data.mdb"
            switch state {
            case .absent:
                throw DataFileError(path: dataFile, expected: "an LMDB data file", found: "no file")
            case .blank:
                throw DataFileError(path: dataFile, expected: "LMDB's two meta pages",
                                    found: "an empty file, or zeros where they belong")
            case .valid:
                break
            }
            // Without a writable lock file (read-only media or files, or none at all: no process
            // has the store open for writing) read without LMDB's locks, creating nothing.
            if access(path + "/lock.mdb", W_OK) != 0 { options.insert(.noLock) }
        }
        if !MapReservation.isSupported { options.remove(.writeMap) }
        var env = try Self.open(path: path, configuration: configuration, options: options)
        if options.contains(.writeMap) && MapReservation.reserve(env, bytes: Self.mapSize(of: env)) != 0 {
            // No room on the disk for the whole map: a writable map over a sparse file would crash
            // the process (SIGBUS) when the disk fills, so this process writes through `pwrite`.
            mdb_env_close(env)
            options.remove(.writeMap)
            env = try Self.open(path: path, configuration: configuration, options: options)
        }
        self.pointer = env
        self.appliedSync = SyncLevel(options)
        self.usesWriteMap = options.contains(.writeMap)
        self.isReadOnly = options.contains(.readOnly)
        self.serial = SharedEnvironment.nextSerial()
        self.path = path
        self.configuration = configuration
    }

    /// Whether this process writes through a writable map (``EnvironmentOptions/writeMap``, with
    /// the whole map reserved on disk).
    let usesWriteMap: Bool
    /// Whether the environment is open read-only (``EnvironmentOptions/readOnly``).
    let isReadOnly: Bool
    /// Set (under exclusive access) when a map grown by another process could not be reserved on
    /// disk: writes refuse until it can be (read under shared access).
    var mapUnreserved = false

    private static func open(path: String, configuration: EnvironmentConfiguration, options: EnvironmentOptions) throws -> OpaquePointer {
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
            let mapSize = options.contains(.writeMap)
                ? max(configuration.mapSize, Self.dataFileSize(in: path)) : configuration.mapSize
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
    private static func dataFileSize(in path: String) -> Int {
        var status = stat()
        guard stat(path + "/data.mdb", &status) == 0 else { return 0 }
        return Int(status.st_size)
    }

    private static func mapSize(of env: OpaquePointer) -> Int {
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        return info.me_mapsize
    }

    private static let lastSerial = Mutex<UInt64>(0)

    private static func nextSerial() -> UInt64 {
        lastSerial.withLock { last in
            last += 1
            return last
        }
    }

    // MARK: Sync level

    /// Records that a handle asks for `level` (`nil`: a handle that does not write).
    func addSyncRequest(_ level: SyncLevel?) {
        guard let level else { return }
        syncLock.withLock { _ in syncRequests[level, default: 0] += 1 }
    }

    /// Records that a handle asking for `level` was released.
    func removeSyncRequest(_ level: SyncLevel?) {
        guard let level else { return }
        syncLock.withLock { _ in
            let count = (syncRequests[level] ?? 0) - 1
            syncRequests[level] = count > 0 ? count : nil
        }
    }

    /// The strongest level an open handle asks for (`nil` when none asks).
    private var strongestRequest: SyncLevel? { syncRequests.keys.max() }

    /// Makes LMDB apply the strongest sync level the open handles ask for (when none asks, the
    /// level stays as it is). One process's handles of a directory share one `MDB_env`, whose
    /// flags say how every commit of the process flushes: so each handle gets at least the
    /// durability it asked for. Going to a stronger level first flushes everything committed so
    /// far (`mdb_env_sync`), so the store is as durable as the new level promises from then on.
    ///
    /// Waits until no transaction of this environment is open in the process (LMDB's flags must
    /// not change under a commit); a thread inside one gets an error instead of a deadlock.
    func applyStrongestSync() throws {
        if syncLock.withLock({ _ in strongestRequest.map { $0 == appliedSync } ?? true }) { return }
        try accessLock.withExclusiveAccess(orThrow: { nestingError("changing how commits flush") }) {
            if isClosed || isReadOnly { return }
            try syncLock.withLock { _ in
                guard let wanted = strongestRequest, wanted != appliedSync else { return }
                let all = SyncLevel.none.lmdbFlags | SyncLevel.data.lmdbFlags
                try LMDBError.check(mdb_env_set_flags(pointer, all, 0), "mdb_env_set_flags(off) for '\(path)'")
                if wanted.lmdbFlags != 0 {
                    try LMDBError.check(
                        mdb_env_set_flags(pointer, wanted.lmdbFlags, 1), "mdb_env_set_flags(on) for '\(path)'")
                }
                if wanted > appliedSync {
                    try LMDBError.check(mdb_env_sync(pointer, 1), "mdb_env_sync for '\(path)'")
                }
                appliedSync = wanted
            }
        }
    }

    /// The sync options LMDB applies now (read from its flags).
    func currentSyncOptions() -> EnvironmentOptions {
        var flags: UInt32 = 0
        mdb_env_get_flags(pointer, &flags)
        var options: EnvironmentOptions = []
        if flags & UInt32(MDB_NOSYNC) != 0 { options.insert(.noSync) }
        if flags & UInt32(MDB_NOMETASYNC) != 0 { options.insert(.noMetaSync) }
        return options
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

    /// The current map size.
    func currentMapSize() -> Int {
        var info = MDB_envinfo()
        mdb_env_info(pointer, &info)
        return info.me_mapsize
    }

    /// Grows the map after a write hit `MDB_MAP_FULL` with the map at `failedSize` bytes: doubles
    /// it, capped by the configured maximum. Does nothing if another writer already grew it.
    func growMap(after failedSize: Int) throws {
        try accessLock.withExclusiveAccess(orThrow: { nestingError("growing the map") }) {
            if isClosed { return }
            let current = currentMapSize()
            if current > failedSize { return }
            let maximum = configuration.maximumMapSize
            guard current < maximum else {
                throw LMDBError(
                    code: LMDBError.Code.mapFull,
                    operation: "growing the map of '\(path)'",
                    message: "the write does not fit in the maximum map size of \(maximum) bytes "
                        + "(EnvironmentConfiguration.maximumMapSize)")
            }
            let (doubled, overflow) = current.multipliedReportingOverflow(by: 2)
            var newSize = overflow ? maximum : min(doubled, maximum)
            if usesWriteMap {
                // LMDB sizes the file to the new map: never less than the file, which another
                // process may have grown (and mapped) further than this one.
                newSize = max(newSize, dataFileSize())
                // Reserve the grown map on disk first: a write into a hole of the map that the
                // disk cannot fill would crash the process instead of failing.
                let code = MapReservation.reserve(pointer, bytes: newSize)
                if code != 0 {
                    throw LMDBError(
                        code: code, operation: "growing the map of '\(path)' to \(newSize) bytes",
                        message: "the disk has no room to reserve it (\(String(cString: strerror(code))))")
                }
            }
            try LMDBError.check(
                mdb_env_set_mapsize(pointer, newSize),
                "mdb_env_set_mapsize(\(newSize)) growing the map of '\(path)'")
        }
    }

    /// The size of the open data file (0 when it cannot be read).
    private func dataFileSize() -> Int {
        var fd: mdb_filehandle_t = -1
        var status = stat()
        guard mdb_env_get_fd(pointer, &fd) == 0, fd >= 0, fstat(fd, &status) == 0 else { return 0 }
        return Int(status.st_size)
    }

    /// The error for a commit that failed with `code` because the disk is full, or `nil` when
    /// the disk is not: `ENOSPC`, or `EIO` (LMDB's answer to a short write, which a full disk
    /// causes) while the data file's file system has no free block. The transaction was not
    /// committed: the store is as it was before it.
    func diskFullError(_ code: Int32, operation: String) -> LMDBError? {
        guard code == ENOSPC || code == EIO else { return nil }
        var fd: mdb_filehandle_t = -1
        var fileSystem = statvfs()
        guard mdb_env_get_fd(pointer, &fd) == 0, fd >= 0, fstatvfs(fd, &fileSystem) == 0 else {
            return nil
        }
        let available = Int(fileSystem.f_bavail) * Int(fileSystem.f_frsize)
        // A full disk keeps a few blocks back at most; a page free is not room for a commit.
        guard code == ENOSPC || available < 64 << 10 else { return nil }
        return LMDBError(
            code: ENOSPC, operation: operation,
            message: "the disk is full (\(available) bytes free on the file system of '\(path)'); the transaction "
                + "was not committed and the store is as it was before it: free space and try again")
    }

    /// Adopts the map size another process set (after `MDB_MAP_RESIZED`).
    func adoptResizedMap() throws {
        try accessLock.withExclusiveAccess(orThrow: { nestingError("adopting a map grown by another process") }) {
            if isClosed { return }
            // 0: the size the last committer recorded. With a writable map, the data file's size
            // instead (LMDB sizes the file to the map, and a third process may have grown the file
            // and its map beyond the recorded size); LMDB raises either to the committed pages.
            let size = usesWriteMap ? dataFileSize() : 0
            try LMDBError.check(
                mdb_env_set_mapsize(pointer, size),
                "mdb_env_set_mapsize(\(size)) adopting a map grown by another process for '\(path)'")
            if usesWriteMap {
                mapUnreserved = MapReservation.reserve(pointer, bytes: currentMapSize()) != 0
            }
        }
    }

    /// Reserves the adopted map on disk, after an earlier attempt failed (see `mapUnreserved`).
    /// - Throws: ``LMDBError`` with the reservation's error (`ENOSPC`) while it still fails.
    func reserveAdoptedMap() throws {
        try accessLock.withExclusiveAccess(orThrow: { nestingError("reserving the map") }) {
            if isClosed || !mapUnreserved { return }
            let size = currentMapSize()
            let code = MapReservation.reserve(pointer, bytes: size)
            if code != 0 {
                throw LMDBError(
                    code: code, operation: "reserving the map of '\(path)' (\(size) bytes, grown by another process)",
                    message: "the disk has no room for it (\(String(cString: strerror(code))))")
            }
            mapUnreserved = false
        }
    }
}

/// The process-wide table of open environments, by canonical directory path.
final class EnvironmentRegistry: Sendable {
    static let shared = EnvironmentRegistry()

    /// The open environments by path; its lock also guards every `referenceCount`.
    private let environments = Mutex<[String: SharedEnvironment]>([:])

    /// The shared environment of `path`, opened (with `configuration`) if this process has not
    /// opened it yet, asking for the sync level `sync` (`nil` for a handle that does not write).
    /// A later open of the same directory shares the first one's configuration, except how
    /// commits flush: the strongest level an open handle asks for applies (see
    /// ``SharedEnvironment/applyStrongestSync()``).
    func acquire(path: String, configuration: EnvironmentConfiguration, sync: SyncLevel?) throws -> SharedEnvironment {
        let environment = try environments.withLock { environments in
            if let existing = environments[path] {
                existing.referenceCount += 1
                existing.addSyncRequest(sync)
                return existing
            }
            let environment = try SharedEnvironment(path: path, configuration: configuration)
            environment.referenceCount = 1
            environment.addSyncRequest(sync)
            environments[path] = environment
            return environment
        }
        do {
            try environment.applyStrongestSync()
        } catch {
            release(environment, sync: sync)
            throw error
        }
        return environment
    }

    /// Releases one reference that asked for the sync level `sync`; the last one closes the
    /// environment, and otherwise the others' strongest level applies from now on.
    func release(_ environment: SharedEnvironment, sync: SyncLevel?) {
        let closed = environments.withLock { environments -> Bool in
            environment.referenceCount -= 1
            environment.removeSyncRequest(sync)
            // Released from inside one of its own transactions: keep it registered and open (a
            // later open reuses it) instead of closing memory that is still in use.
            if environment.referenceCount == 0 && !environment.accessLock.isHeldSharedByCurrentThread {
                environments[environment.path] = nil
                environment.close()
                return true
            }
            return false
        }
        // A weaker level than before may apply now. From inside a transaction of this
        // environment it cannot change: the stronger level stays until the next open or close.
        if !closed && !environment.accessLock.isHeldSharedByCurrentThread {
            // Only `mdb_env_set_flags` runs when the level drops (it fails only for flags LMDB
            // cannot change, which these are not); a failure would leave the stronger level.
            try? environment.applyStrongestSync()
        }
    }

    /// The environment already open for `path`, if any, with one more reference.
    func acquireIfOpen(path: String) -> SharedEnvironment? {
        environments.withLock { environments in
            guard let existing = environments[path] else { return nil }
            existing.referenceCount += 1
            return existing
        }
    }
}

/// The canonical form of an existing directory's path (symbolic links and `..` resolved).
func canonicalPath(_ path: String) throws -> String {
    guard let resolved = realpath(path, nil) else {
        let code = errno
        throw LMDBError(code: code, operation: "resolving the path '\(path)'",
                        message: String(cString: strerror(code)))
    }
    defer { free(resolved) }
    return String(cString: resolved)
}
