import CLMDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The map's size: grown when a write fills it, adopted when another process grew it, reserved on
/// disk with a writable map; and the error for a commit that failed because the disk is full.
extension SharedEnvironment {
    /// The current map size.
    func currentMapSize() -> Int {
        var info = MDB_envinfo()
        mdb_env_info(pointer, &info)
        return info.me_mapsize
    }

    /// Grows the map after a write hit `MDB_MAP_FULL` with the map at `failedSize` bytes: doubles
    /// it while it is smaller than ``EnvironmentConfiguration/mapHeadroom``, else grows it by that
    /// much, capped by the configured maximum. Does nothing if another writer already grew it.
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
            // Doubled while small, then by the configured headroom: what is reserved beyond the
            // pages in use stays bounded.
            let step = max(min(current, configuration.mapHeadroom), 64 << 10)
            let (grown, overflow) = current.addingReportingOverflow(step)
            var newSize = overflow ? maximum : min(grown, maximum)
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
                        message: "the disk is full: it has no room to reserve it (\(String(cString: strerror(code)))); "
                            + "the write was not committed and the store is as it was before it")
                }
            }
            try LMDBError.check(
                mdb_env_set_mapsize(pointer, newSize),
                "mdb_env_set_mapsize(\(newSize)) growing the map of '\(path)'")
        }
    }

    /// The size of the open data file (0 when it cannot be read).
    func dataFileSize() -> Int {
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
