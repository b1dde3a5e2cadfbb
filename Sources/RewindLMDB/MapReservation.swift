import CLMDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reserving a writable map's file on disk (``EnvironmentOptions/writeMap``).
///
/// With `MDB_WRITEMAP` LMDB sizes the data file to the map with `ftruncate`, a sparse file; a
/// write into one of its holes when the disk is full raises `SIGBUS` instead of failing. So the
/// whole map is allocated (`posix_fallocate`) before it is used, when it is opened and before it
/// grows: a full disk then fails the growth (a typed error), never a write into the map.
enum MapReservation {
    /// Whether this platform can reserve a file's blocks (Linux); elsewhere the writable map is
    /// not used.
    static var isSupported: Bool {
        #if os(Linux)
            return true
        #else
            return false
        #endif
    }

    /// Allocates the first `bytes` bytes of the environment's data file; returns 0 or the error
    /// number (`ENOSPC` when the file system has not that much free space).
    static func reserve(_ env: OpaquePointer, bytes: Int) -> Int32 {
        var fd: mdb_filehandle_t = -1
        guard mdb_env_get_fd(env, &fd) == 0, fd >= 0 else { return EBADF }
        return reserve(fd: fd, bytes: bytes)
    }

    /// Allocates the first `bytes` bytes of the open file `fd` (see ``reserve(_:bytes:)``).
    static func reserve(fd: Int32, bytes: Int) -> Int32 {
        #if os(Linux)
            var status = stat()
            guard fstat(fd, &status) == 0 else { return errno }
            let allocated = Int(status.st_blocks) * 512
            if allocated >= bytes && Int(status.st_size) >= bytes { return 0 }
            // Ask first: a `posix_fallocate` that fails part way keeps what it allocated.
            var fileSystem = statvfs()
            if fstatvfs(fd, &fileSystem) == 0 {
                let available = Int(fileSystem.f_bavail) * Int(fileSystem.f_frsize)
                if available < bytes - min(allocated, bytes) { return ENOSPC }
            }
            return posix_fallocate(fd, 0, off_t(bytes))
        #else
            return 0
        #endif
    }
}
