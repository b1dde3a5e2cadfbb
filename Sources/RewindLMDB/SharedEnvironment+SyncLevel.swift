import CLMDB
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the environment's commits flush: the strongest sync level its open handles ask for.
extension SharedEnvironment {
    /// Records that a handle asks for `level` (`nil`: a handle that does not write).
    func addSyncRequest(_ level: SyncLevel?) {
        guard let level else { return }
        sync.withLock { $0.requests[level, default: 0] += 1 }
    }

    /// Records that a handle asking for `level` was released.
    func removeSyncRequest(_ level: SyncLevel?) {
        guard let level else { return }
        sync.withLock { sync in
            let count = (sync.requests[level] ?? 0) - 1
            sync.requests[level] = count > 0 ? count : nil
        }
    }

    /// Makes LMDB apply the strongest sync level the open handles ask for (when none asks, the
    /// level stays as it is). One process's handles of a directory share one `MDB_env`, whose
    /// flags say how every commit of the process flushes: so each handle gets at least the
    /// durability it asked for. Going to a stronger level first flushes everything committed so
    /// far (`mdb_env_sync`), so the store is as durable as the new level promises from then on.
    ///
    /// Waits until no transaction of this environment is open in the process (LMDB's flags must
    /// not change under a commit); a thread inside one gets an error instead of a deadlock.
    func applyStrongestSync() throws {
        if sync.withLock({ sync in sync.strongestRequest.map { $0 == sync.applied } ?? true }) { return }
        try accessLock.withExclusiveAccess(orThrow: { nestingError("changing how commits flush") }) {
            if isClosed || isReadOnly { return }
            try sync.withLock { sync in
                guard let wanted = sync.strongestRequest, wanted != sync.applied else { return }
                let all = SyncLevel.none.lmdbFlags | SyncLevel.data.lmdbFlags
                try LMDBError.check(mdb_env_set_flags(pointer, all, 0), "mdb_env_set_flags(off) for '\(path)'")
                if wanted.lmdbFlags != 0 {
                    try LMDBError.check(
                        mdb_env_set_flags(pointer, wanted.lmdbFlags, 1), "mdb_env_set_flags(on) for '\(path)'")
                }
                if wanted > sync.applied {
                    try LMDBError.check(mdb_env_sync(pointer, 1), "mdb_env_sync for '\(path)'")
                }
                sync.applied = wanted
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
}
