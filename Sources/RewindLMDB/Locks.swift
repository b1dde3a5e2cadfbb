#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A per-thread counter (a `pthread_key_t` holding an integer), e.g. how deeply the current thread
/// is nested in a lock.
///
/// `@unchecked Sendable`: the key is written once, in `init`; each thread reads and writes only
/// its own value (the platform's thread-specific storage).
final class ThreadLocalCounter: @unchecked Sendable {
    /// A `let`: a stored `var` of a class is checked for exclusive access at run time on every
    /// read, and the write path reads a counter five times a commit (~380 instructions of a
    /// durable send; callgrind, Benchmarks/HISTORY.md 2026-12-01).
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    deinit {
        pthread_key_delete(key)
    }

    /// The current thread's value (0 until set).
    var value: Int {
        get { Int(bitPattern: pthread_getspecific(key)) }
        set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
    }
}

/// A readers/writer lock over `pthread_rwlock_t`: many holders of shared access, or one holder of
/// exclusive access.
///
/// Shared access is re-entrant per thread (a nested request does not lock again, so it cannot
/// queue behind a waiting exclusive request, which would deadlock on writer-preferring
/// platforms), and a thread that holds shared access cannot ask for exclusive access: that
/// request throws instead of deadlocking.
///
/// `@unchecked Sendable`: the `pthread_rwlock_t` guards itself (its pointer is written once, in
/// `init`), and `sharedDepth` is per thread. (The standard library has no readers/writer lock;
/// plain mutual exclusion in the package is `Synchronization.Mutex`.)
final class ReadWriteLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    private let sharedDepth = ThreadLocalCounter()

    init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Whether the current thread holds shared access.
    var isHeldSharedByCurrentThread: Bool { sharedDepth.value > 0 }

    /// Runs `body` with shared access.
    func withSharedAccess<R>(_ body: () throws -> R) rethrows -> R {
        let depth = sharedDepth.value
        if depth == 0 { pthread_rwlock_rdlock(lock) }
        sharedDepth.value = depth + 1
        defer {
            sharedDepth.value = depth
            if depth == 0 { pthread_rwlock_unlock(lock) }
        }
        return try body()
    }

    /// Runs `body` with exclusive access.
    /// - Throws: `conflict()` when the current thread holds shared access (it would deadlock).
    func withExclusiveAccess<R>(
        orThrow conflict: () -> any Error, _ body: () throws -> R
    ) throws -> R {
        if sharedDepth.value > 0 { throw conflict() }
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
