import Foundation
import RewindLMDB
import RewindValues

/// What a directory holds before a store is opened in it: nothing (a new store), a store, a store
/// another process is creating right now, or something that is not a store.
extension TransitionStore {
    /// Creates the directory when it is missing; returns whether the store is new. Throws
    /// ``StoreError/notAStore(path:reason:)`` for a non-store, having changed nothing. With
    /// `checkingPages` the data file's pages are checked before LMDB reads it
    /// (``EnvironmentOptions/checkPages``).
    static func prepareDirectory(_ directory: String, checkingPages: Bool = false) throws -> Bool {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if !files.fileExists(atPath: directory, isDirectory: &isDirectory) {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return true
        }
        guard isDirectory.boolValue else {
            throw StoreError.notAStore(path: directory, reason: "it is not a directory")
        }
        if Environment.isOpen(directory: directory) { return false }
        let contents = try files.contentsOfDirectory(atPath: directory)
        if contents.isEmpty { return true }
        // Only LMDB's lock file: another process is creating the store (LMDB makes it first).
        if contents == ["lock.mdb"] { return true }
        guard contents.contains("data.mdb") else {
            throw StoreError.notAStore(path: directory, reason: "it has files but no LMDB data file (data.mdb)")
        }
        let dataFile = (directory as NSString).appendingPathComponent("data.mdb")
        if let size = (try? files.attributesOfItem(atPath: dataFile))?[.size] as? NSNumber, size.intValue == 0 {
            // Another process has just created the environment and not yet written its first pages.
            return true
        }
        if try metaPagesAreBlank(dataFile) {
            // With a writable map the file is sized to the map before LMDB writes its meta pages:
            // another process is creating the environment right now.
            return true
        }
        // Look without touching: read-only, and no lock file created. When the lock file exists a
        // process may be writing the environment right now (creating the store, say): read through
        // LMDB's locking then, or a lock-free read may see pages that writer is reusing.
        do {
            let sharingLock = contents.contains("lock.mdb")
            return try Environment.inspect(
                directory: directory, sharingLock: sharingLock, checkingPages: checkingPages
            ) { environment in
                let meta: Database
                do {
                    meta = try environment.database(named: StoreLayout.meta, create: false)
                } catch let error as LMDBError where error.isNotFound {
                    // An environment with no database at all holds nothing: it is a store another
                    // process is creating right now (its first write transaction, which creates
                    // the metadata, has not committed yet). Creating it here too is safe: that
                    // transaction and ours are serialised by LMDB, and the second one finds the
                    // metadata written.
                    if try isBeingCreated(environment) { return true }
                    throw StoreError.notAStore(path: directory, reason: "it has no '\(StoreLayout.meta)' database")
                }
                return try environment.read { txn in
                    // The store's databases are created before its metadata is written: an empty
                    // `meta` is a store being created, as above.
                    if try txn.statistics(of: meta).entries == 0 { return true }
                    _ = try readFormat(txn, meta: meta, path: directory)
                    return false
                }
            }
        } catch let error as LMDBError {
            throw StoreError.notAStore(
                path: directory, reason: "LMDB cannot read it as a store (\(error.message))",
                cause: ErrorCause(error))
        }
    }

    /// Whether the data file starts with a page of zeros (LMDB's meta pages not written yet).
    private static func metaPagesAreBlank(_ dataFile: String) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: dataFile) else { return false }
        defer { try? handle.close() }
        guard let head = try handle.read(upToCount: 4096), !head.isEmpty else { return false }
        return head.allSatisfy { $0 == 0 }
    }

    /// Whether an environment without a `meta` database is a store that another process is
    /// creating right now: its only named databases (if any) are the store's own, all empty.
    /// (The databases are created before the metadata is written.) Its names are read in a later
    /// transaction than the one that missed `meta`: when `meta` is among them now, the other
    /// process has created the store since, and it is opened as one.
    static func isBeingCreated(_ environment: Environment) throws -> Bool {
        let main = try environment.database(named: nil, create: false)
        let ours = Set(StoreLayout.allDatabases)
        let names: [String] = try environment.read { txn in
            var names: [String] = []
            try txn.forEach(in: main) { key, _ in
                names.append(String(decoding: key, as: UTF8.self))
                return names.count > ours.count ? .stop : .next
            }
            return names
        }
        guard names.allSatisfy({ ours.contains($0) }) else { return false }
        if names.contains(StoreLayout.meta) { return true }
        for name in names {
            let database = try environment.database(named: name, create: false)
            if try environment.read({ try $0.statistics(of: database).entries }) != 0 {
                // Data without metadata is not a store, unless the metadata has appeared since.
                return try hasMeta(environment)
            }
        }
        return true
    }

    /// Whether the environment has a `meta` database now.
    private static func hasMeta(_ environment: Environment) throws -> Bool {
        do {
            _ = try environment.database(named: StoreLayout.meta, create: false)
            return true
        } catch let error as LMDBError where error.isNotFound {
            return false
        }
    }
}
