import CLMDB
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
        throw LMDBError(
            code: code, operation: "resolving the path '\(path)'",
            message: String(cString: strerror(code)))
    }
    defer { free(resolved) }
    return String(cString: resolved)
}
