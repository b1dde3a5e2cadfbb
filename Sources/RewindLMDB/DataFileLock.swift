#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `flock` a process holds on an environment's data file (`data.mdb`) while it has the
/// environment open: shared by every opener, exclusive for a compaction, which replaces the file.
///
/// A compaction must not replace `data.mdb` under a process that has it mapped: that process would
/// go on reading and writing the old file (its inode), and its later commits would be lost. So
/// every open of an environment (writable, or read-only through LMDB's locking) holds a shared
/// lock on the data file for as long as it is open, and a compaction takes the exclusive lock
/// without waiting: it fails while any other process has the environment open. An open that
/// starts during a compaction waits for it (its shared lock waits for the exclusive one) and then
/// opens the compacted file: after taking the lock the opener checks that the file it locked is
/// still the one at `data.mdb` (the compaction renames a new file over it) and locks again when not.
///
/// The lock is on `data.mdb`, not on LMDB's `lock.mdb`: LMDB keeps POSIX record locks on its lock
/// file, which the process loses as soon as it closes *any* descriptor of that file, and on Apple
/// platforms `flock` and record locks on one file can conflict. LMDB takes no lock on the data file.
///
/// A child process holds every open file description of its parent from its `fork` (or
/// `posix_spawn`'s clone) until its `exec` closes the close-on-exec ones, so for that moment it also
/// holds this process's `flock`s, even on a descriptor this process has just closed. On Linux the
/// kernel's lock table (`/proc/locks`) lists such a lock under the id of the process that took it:
/// ``exclusive(directory:patience:onWait:)`` waits, for a while, for locks listed under this
/// process's own id to go.
///
/// `@unchecked Sendable`: `descriptor` is written once, in `init`, and closed once, by `release()`
/// (called under the owning environment's exclusive access).
final class DataFileLock: @unchecked Sendable {
    private var descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        release()
    }

    /// Releases the lock (closing its descriptor). Calling it twice is harmless.
    func release() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }

    /// A shared lock on the data file of the environment directory `directory`, waiting while a
    /// compaction holds the exclusive lock; `nil` when there is no data file yet (a new
    /// environment: lock it once LMDB created it) or the file system has no `flock`.
    static func shared(directory: String) throws -> DataFileLock? {
        if case .locked(let lock) = try lock(directory: directory, operation: LOCK_SH) { return lock }
        return nil
    }

    /// The exclusive lock on the data file of `directory`, or `nil` when another open file holds
    /// a lock on it (another process has the environment open, or is compacting it), when there
    /// is no data file, or when the file system has no `flock`.
    ///
    /// It never waits for another process. When every lock on the file is listed under this
    /// process's own id (Linux's `/proc/locks`) while this process holds none, the holder is a
    /// child between its `fork` and its `exec` (a `posix_spawn` on another thread: the descriptors
    /// it was given go at its `exec`, within milliseconds), and when none is listed any more the
    /// lock has just been let go; it tries again, waiting 1 ms, then twice as long each time (at
    /// most 50 ms), for at most `patience`, calling `onWait` before each wait.
    /// Where the lock table cannot be read (other systems, whose `posix_spawn` gives a child no
    /// descriptor it closes at `exec`), it does not wait.
    static func exclusive(
        directory: String, patience: Duration = .seconds(5), onWait: () -> Void = {}
    ) throws -> DataFileLock? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: patience)
        var pause = Duration.milliseconds(1)
        while true {
            switch try lock(directory: directory, operation: LOCK_EX | LOCK_NB) {
            case .locked(let lock): return lock
            case .unavailable: return nil
            case .held: break
            }
            guard clock.now < deadline, heldByNoOtherProcess(directory + "/data.mdb") else { return nil }
            onWait()
            let (seconds, attoseconds) = pause.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            var remaining = timespec()
            while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    /// Whether the kernel's lock table lists every lock held on the file at `path` (if any) under
    /// this process's id (`false` where the table cannot be read).
    private static func heldByNoOtherProcess(_ path: String) -> Bool {
        #if os(Linux)
            var file = stat()
            guard stat(path, &file) == 0 else { return false }
            let holders = LockTable.holders(device: UInt64(file.st_dev), inode: UInt64(file.st_ino))
            return holders?.allSatisfy { $0 == getpid() } ?? false
        #else
            return false
        #endif
    }

    /// What an attempt to lock the data file gave.
    private enum Attempt {
        case locked(DataFileLock)
        /// Another open file holds a lock on it (only without waiting, `LOCK_NB`).
        case held
        /// There is no data file, or the file system has no `flock`.
        case unavailable
    }

    private static func lock(directory: String, operation: Int32) throws -> Attempt {
        let path = directory + "/data.mdb"
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 {
                let code = errno
                if code == ENOENT { return .unavailable }
                if code == EINTR { continue }
                throw LMDBError(
                    code: code, operation: "opening '\(path)' to lock it", message: String(cString: strerror(code)))
            }
            var result = flock(fd, operation)
            while result != 0 && errno == EINTR { result = flock(fd, operation) }
            if result != 0 {
                let code = errno
                close(fd)
                if code == EWOULDBLOCK { return .held }
                if code == ENOLCK || code == EOPNOTSUPP || code == EINVAL { return .unavailable }  // no flock here
                throw LMDBError(
                    code: code, operation: "locking '\(path)' (flock)", message: String(cString: strerror(code)))
            }
            // A compaction may have renamed another file over `data.mdb` while this one waited:
            // the lock must be on the file that is there now.
            var locked = stat()
            var current = stat()
            if fstat(fd, &locked) == 0 && stat(path, &current) == 0
                && locked.st_dev == current.st_dev && locked.st_ino == current.st_ino
            {
                return .locked(DataFileLock(descriptor: fd))
            }
            close(fd)
            if operation & LOCK_NB != 0 && stat(path, &current) != 0 { return .unavailable }
        }
    }

    /// The id of another process holding LMDB's lock on `lock.mdb` of `directory` (every process
    /// with the environment open through LMDB's locking holds a shared record lock on its first
    /// byte), or `nil` when none does. Only for when this process holds no lock on that file: the
    /// descriptor opened here is closed, and closing any descriptor of a file drops every POSIX
    /// record lock the process holds on it.
    static func otherLMDBProcess(directory: String) -> Int32? {
        let fd = open(directory + "/lock.mdb", O_RDWR | O_CLOEXEC)
        if fd < 0 { return nil }
        defer { close(fd) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 0
        probe.l_len = 1
        guard fcntl(fd, F_GETLK, &probe) == 0, probe.l_type != Int16(F_UNLCK) else { return nil }
        return probe.l_pid
    }
}
