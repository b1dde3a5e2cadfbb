import CLMDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why an environment could not be compacted; in every case its data file is as it was.
public enum CompactionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another process has the environment open (`processID`, when known: a process holding
    /// LMDB's lock on `lock.mdb`; `nil`: a process holding the shared lock on `data.mdb` that every
    /// open takes). Compaction replaces the data file, and that process would go on with the old
    /// one, losing what it writes: close it and compact again.
    case openInAnotherProcess(path: String, processID: Int32?)
    /// The environment was opened read-only.
    case readOnly(path: String)

    /// A sentence naming the store and what keeps it from being compacted.
    public var description: String {
        switch self {
        case .openInAnotherProcess(let path, let processID):
            let who = processID.map { "process \($0)" } ?? "another process"
            return "cannot compact '\(path)': \(who) has it open (compaction replaces its data file, which that "
                + "process would go on using); close it and compact again — nothing was changed"
        case .readOnly(let path):
            return "cannot compact '\(path)': it is open read-only"
        }
    }
}

/// A step of ``Environment/compact(headroom:progress:)``, reported as it is reached.
public enum CompactionStep: String, Sendable, Hashable, CaseIterable {
    /// The environment is closed in this process, no other process has it open, and the compacting
    /// copy into the temporary file is starting.
    case copying
    /// The copy is complete and flushed; `data.mdb` is still the old file.
    case copied
    /// The copy was renamed over `data.mdb` and the directory flushed; the environment reopens on it.
    case replaced
}

/// What a compaction did.
public struct CompactionResult: Sendable, Hashable {
    /// The data file's length before, in bytes.
    public var bytesBefore: Int
    /// The data file's length after, in bytes: with a writable map the pages in use plus the
    /// headroom, but never more than before.
    public var bytesAfter: Int
    /// The bytes of the pages in use (the compacted copy's length).
    public var liveBytes: Int
    /// The map's size after, in bytes.
    public var mapSize: Int
}

/// The names and steps of a compaction (see ``Environment/compact(headroom:progress:)``).
enum Compaction {
    /// The copy's file, in the environment's directory (so the rename is atomic); a leftover of
    /// a compaction killed before its rename is removed by the next writable open.
    static let temporaryFileName = "data.mdb.compacting"

    /// Replaces the data file of `directory` (canonical; the environment closed in this process)
    /// with its compacted copy, as long as the pages in use plus `headroom` (never longer than
    /// before): takes the exclusive ``DataFileLock`` (refusing when another process has the
    /// environment open), writes the copy beside `data.mdb`, reserves and flushes it, renames it
    /// over `data.mdb` and flushes the directory. On failure the old file stays and no copy is left.
    static func replaceDataFile(
        directory: String, configuration: EnvironmentConfiguration, headroom: Int, progress: (CompactionStep) -> Void
    ) throws -> (bytesBefore: Int, liveBytes: Int, fileBytes: Int) {
        guard let exclusive = try DataFileLock.exclusive(directory: directory) else {
            throw CompactionError.openInAnotherProcess(
                path: directory, processID: DataFileLock.otherLMDBProcess(directory: directory))
        }
        defer { exclusive.release() }
        // LMDB's own tools take no lock on the data file, but LMDB's lock on `lock.mdb`.
        if let other = DataFileLock.otherLMDBProcess(directory: directory) {
            throw CompactionError.openInAnotherProcess(path: directory, processID: other)
        }
        let bytesBefore = SharedEnvironment.dataFileSize(in: directory)
        let temporary = directory + "/" + temporaryFileName
        do {
            progress(.copying)
            let (liveBytes, fileBytes) = try writeCompactedCopy(
                directory: directory, to: temporary, configuration: configuration, headroom: headroom,
                limit: bytesBefore)
            progress(.copied)
            guard rename(temporary, directory + "/data.mdb") == 0 else {
                throw systemError("renaming '\(temporary)' over '\(directory)/data.mdb'")
            }
            try flushDirectory(directory)
            progress(.replaced)
            return (bytesBefore, liveBytes, fileBytes)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Writes the compacted copy of the environment in `directory` to `temporary`, lengthened to
    /// the pages in use plus `headroom` (at most `limit`) and reserved on disk where maps are
    /// (``MapReservation``), and flushes it; returns the pages' bytes and the file's length.
    private static func writeCompactedCopy(
        directory: String, to temporary: String, configuration: EnvironmentConfiguration, headroom: Int, limit: Int
    ) throws -> (liveBytes: Int, fileBytes: Int) {
        // Read without LMDB's locks: no other process has the environment open (the exclusive
        // lock, and nobody holds LMDB's lock), and this one has closed it.
        var env: OpaquePointer?
        try LMDBError.check(mdb_env_create(&env), "mdb_env_create for compacting '\(directory)'")
        guard let env else {
            throw LMDBError.misuse("mdb_env_create for compacting '\(directory)'", "LMDB returned no environment")
        }
        defer { mdb_env_close(env) }
        try LMDBError.check(
            mdb_env_set_maxdbs(env, MDB_dbi(max(configuration.maxDatabases, 2))),
            "mdb_env_set_maxdbs for compacting '\(directory)'")
        try LMDBError.check(
            mdb_env_set_mapsize(env, SharedEnvironment.dataFileSize(in: directory)),
            "mdb_env_set_mapsize for compacting '\(directory)'")
        try LMDBError.check(
            mdb_env_open(
                env, directory, UInt32(MDB_RDONLY | MDB_NOLOCK | MDB_NOTLS), mdb_mode_t(configuration.fileMode)),
            "mdb_env_open (read-only) for compacting '\(directory)'")
        var environmentStatistics = MDB_stat()
        mdb_env_stat(env, &environmentStatistics)
        let pageSize = max(Int(environmentStatistics.ms_psize), 512)
        var original = stat()
        let mode =
            stat(directory + "/data.mdb", &original) == 0
            ? mode_t(original.st_mode & 0o7777) : mode_t(configuration.fileMode)
        unlink(temporary)
        let fd = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw systemError("creating '\(temporary)'") }
        defer { close(fd) }
        try LMDBError.check(
            mdb_env_copyfd2(env, fd, UInt32(MDB_CP_COMPACT)), "mdb_env_copyfd2 (compacting) to '\(temporary)'")
        // LMDB copies pages with what their unused bytes held (deleted values among them): zero them.
        try PageCheck.scrub(fd: fd, path: temporary)
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw systemError("reading the length of '\(temporary)'") }
        let liveBytes = Int(status.st_size)
        var fileBytes = liveBytes
        if MapReservation.isSupported {
            // The map the next open maps: the pages in use plus the headroom, never longer than
            // before; reserved, so a full disk fails here, not a later write into the map.
            let target = max(min((liveBytes + headroom + pageSize - 1) / pageSize * pageSize, limit), liveBytes)
            let code = MapReservation.reserve(fd: fd, bytes: target)
            if code != 0 {
                throw LMDBError(
                    code: code, operation: "reserving \(target) bytes for '\(temporary)'",
                    message: "the disk has no room for the compacted copy (\(String(cString: strerror(code))))")
            }
            fileBytes = target
        }
        guard fsync(fd) == 0 else { throw systemError("flushing '\(temporary)'") }
        return (liveBytes, fileBytes)
    }

    /// Flushes the directory `path`, so a rename in it survives a power loss.
    private static func flushDirectory(_ path: String) throws {
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw systemError("opening the directory '\(path)' to flush it") }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw systemError("flushing the directory '\(path)'") }
    }

    private static func systemError(_ operation: String) -> LMDBError {
        let code = errno
        return LMDBError(code: code, operation: operation, message: String(cString: strerror(code)))
    }
}

extension Environment {
    /// Rewrites the environment into a compacted copy (LMDB's `mdb_env_copyfd2` with
    /// `MDB_CP_COMPACT`: the pages in use, renumbered, without free pages) and replaces its data
    /// file with it atomically; returns the file's length before and after.
    ///
    /// Steps: every transaction of this process on the environment ends (later ones wait), the
    /// environment is closed in this process and the exclusive ``DataFileLock`` taken (it fails at
    /// once while another process has the environment open); the copy is written to
    /// `data.mdb.compacting` in the same directory and flushed (`fsync`), renamed over `data.mdb`,
    /// the directory flushed, and the environment reopened on the new file with a map of the
    /// pages in use plus `headroom` bytes (reserved on disk with a writable map; never a longer file
    /// than before). A process killed
    /// at any step leaves the old file or the new one, whole; a leftover copy is removed by the
    /// next writable open. Every ``Environment`` handle of the directory in this process, and its
    /// ``Database`` handles, go on working on the new file.
    ///
    /// Other processes: while compaction runs, an open in another process waits for it (its
    /// shared lock on the data file waits for the exclusive one). A child this process starts on
    /// another thread holds this process's lock from its clone to its `exec`; on Linux the
    /// compaction waits for such a lock (up to 5 s), never for another process's. LMDB's own tools (`mdb_stat`,
    /// `mdb_copy`) take no such lock: one that has the environment open when compaction starts is
    /// refused like any process, but do not start one during a compaction.
    ///
    /// - Parameters:
    ///   - headroom: free space left in the map after the pages in use; default
    ///     ``EnvironmentConfiguration/mapHeadroom``.
    ///   - progress: called at each ``CompactionStep`` (from the calling thread).
    /// - Throws: ``CompactionError`` when another process has the environment open or it is
    ///   read-only (nothing changed); ``LMDBError`` when the copy, the flush or the rename fails
    ///   (the old file stays; the environment reopens on it) or when called inside a transaction of
    ///   this environment.
    @discardableResult
    public func compact(headroom: Int? = nil, progress: (CompactionStep) -> Void = { _ in }) throws -> CompactionResult
    {
        guard !shared.isReadOnly else { throw CompactionError.readOnly(path: path) }
        return try shared.compact(headroom: max(headroom ?? configuration.mapHeadroom, 0), progress: progress)
    }
}

extension Environment {
    /// Compacts the environment in `directory` (see ``compact(headroom:progress:)``) without
    /// opening it through LMDB's locking when this process does not have it open: nothing is
    /// written to it unless the compaction goes ahead, so a refused compaction leaves its files
    /// byte-identical. When this process has it open, its open environment is compacted (and its
    /// handles go on with the new file).
    ///
    /// The compacted file is as long as the pages in use plus `headroom` (never longer than
    /// before), reserved on disk where the map is (Linux), so the next open maps it whole.
    /// - Throws: as ``compact(headroom:progress:)``; ``DataFileError`` when the directory has no
    ///   data file.
    @discardableResult
    public static func compact(
        directory: String, headroom: Int = EnvironmentConfiguration().mapHeadroom,
        progress: (CompactionStep) -> Void = { _ in }
    ) throws -> CompactionResult {
        let path = try canonicalPath(directory)
        if let shared = EnvironmentRegistry.shared.acquireIfOpen(path: path) {
            let environment = Environment(shared: shared, isRegistered: true)
            defer { environment.close() }
            return try environment.compact(headroom: headroom, progress: progress)
        }
        guard SharedEnvironment.dataFileSize(in: path) > 0 else {
            throw DataFileError(
                path: path + "/data.mdb", expected: "an LMDB data file", found: "no file, or an empty one")
        }
        let result = try Compaction.replaceDataFile(
            directory: path, configuration: EnvironmentConfiguration(), headroom: max(headroom, 0), progress: progress)
        return CompactionResult(
            bytesBefore: result.bytesBefore, bytesAfter: SharedEnvironment.dataFileSize(in: path),
            liveBytes: result.liveBytes, mapSize: result.fileBytes)
    }
}

extension SharedEnvironment {
    /// See ``Environment/compact(headroom:progress:)``.
    func compact(headroom: Int, progress: (CompactionStep) -> Void) throws -> CompactionResult {
        try accessLock.withExclusiveAccess(orThrow: { nestingError("compacting the environment") }) {
            if isClosed { throw LMDBError.misuse("compacting '\(path)'", "the environment is closed") }
            mdb_env_close(pointer)
            dataFileLock?.release()
            dataFileLock = nil
            // From here the environment is closed in this process: every way out reopens it.
            let result: (bytesBefore: Int, liveBytes: Int, fileBytes: Int)
            do {
                result = try Compaction.replaceDataFile(
                    directory: path, configuration: configuration, headroom: headroom, progress: progress)
            } catch {
                try reopen(mapSize: 0)
                throw error
            }
            // Where maps are reserved the copy was lengthened to the map (a writable map is the
            // file's length); elsewhere the file holds the pages and the map adds the headroom.
            try reopen(mapSize: MapReservation.isSupported ? result.fileBytes : result.liveBytes + headroom)
            return CompactionResult(
                bytesBefore: result.bytesBefore, bytesAfter: dataFileSize(), liveBytes: result.liveBytes,
                mapSize: currentMapSize())
        }
    }

    /// Reopens the environment (closed by ``compact(headroom:progress:)``) with a map of at least
    /// `mapSize` bytes (0: as configured), its databases under the same handles, and the sync level that applied.
    /// When it cannot be reopened, the environment is left closed (every later use throws).
    private func reopen(mapSize: Int) throws {
        do {
            let opened = try Self.openEnvironment(
                path: path, configuration: configuration, mapSize: mapSize > 0 ? mapSize : configuration.mapSize)
            pointer = opened.pointer
            opening = SharedEnvironment.nextSerial()
            dataFileLock = opened.lock
            usesWriteMap = opened.options.contains(.writeMap)
            mapUnreserved = false
            try reopenDatabases()
            let level = sync.withLock { $0.applied }
            let all = SyncLevel.none.lmdbFlags | SyncLevel.data.lmdbFlags
            try LMDBError.check(mdb_env_set_flags(pointer, all, 0), "mdb_env_set_flags(off) for '\(path)'")
            if level.lmdbFlags != 0 {
                try LMDBError.check(
                    mdb_env_set_flags(pointer, level.lmdbFlags, 1), "mdb_env_set_flags(on) for '\(path)'")
            }
        } catch {
            isClosed = true
            throw error
        }
    }

    /// Opens the databases this process had open again, in the order of their handles, so each
    /// gets the handle it had (LMDB numbers them in the order they are opened); ``Database``
    /// values held by callers stay valid.
    private func reopenDatabases() throws {
        let cached = databases.withLock { table in
            (Array(table.named.values) + (table.main.map { [$0] } ?? [])).sorted { $0.handle < $1.handle }
        }
        guard !cached.isEmpty else { return }
        var txn: OpaquePointer?
        try LMDBError.check(
            mdb_txn_begin(pointer, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin reopening the databases of '\(path)'")
        guard let txn else {
            throw LMDBError.misuse("reopening the databases of '\(path)'", "LMDB returned no transaction")
        }
        for database in cached {
            var handle: MDB_dbi = 0
            let code = database.name.map { mdb_dbi_open(txn, $0, 0, &handle) } ?? mdb_dbi_open(txn, nil, 0, &handle)
            if code != 0 {
                mdb_txn_abort(txn)
                throw LMDBError(code: code, operation: "mdb_dbi_open \(database) reopening '\(path)' after compaction")
            }
            if handle != database.handle {
                mdb_txn_abort(txn)
                throw LMDBError.misuse(
                    "reopening \(database) of '\(path)' after compaction",
                    "LMDB gave it handle \(handle) instead of \(database.handle)")
            }
        }
        try LMDBError.check(mdb_txn_commit(txn), "mdb_txn_commit reopening the databases of '\(path)'")
    }
}
