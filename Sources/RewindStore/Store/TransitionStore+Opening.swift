import Foundation
import RewindLMDB
import RewindValues

/// Opening a store: read-only (nothing created or written) or for writing (created, or migrated
/// from an older format).
extension TransitionStore {
    /// An open environment with the store's databases, format and id.
    struct OpenedStore {
        var environment: Environment
        var databases: StoreDatabases
        var format: UInt32
        var storeID: UUID
    }

    /// Opens an existing store of the current format without creating or writing anything.
    static func openReadOnlyStore(_ directory: String, configuration: EnvironmentConfiguration) throws -> OpenedStore {
        let environment = try openReadOnly(directory, configuration: configuration)
        do {
            let (databases, format, storeID) = try readOnlyDatabases(environment, path: directory)
            return OpenedStore(environment: environment, databases: databases, format: format, storeID: storeID)
        } catch {
            environment.close()
            throw error
        }
    }

    /// Opens the store in `directory` for writing, creating it when the directory does not exist
    /// or is empty, and migrating an older format.
    static func openWritableStore(
        _ directory: String, configuration: inout StoreConfiguration
    ) throws -> OpenedStore {
        // Every process opens a store the same way (LMDB asks that processes sharing an
        // environment agree on MDB_WRITEMAP): commits write into the map, no page copies and, in
        // no-sync mode, no system call per commit. Durable commits stay msync-then-meta; the map
        // is reserved on disk, so a full disk fails a write instead of crashing (Linux only).
        configuration.environment.options.insert(.writeMap)
        let isNew = try prepareDirectory(
            directory, checkingPages: configuration.environment.options.contains(.checkPages))
        let environment: Environment
        do {
            environment = try Environment(directory: directory, configuration: configuration.environment)
        } catch let error as LMDBError where error.code == LMDBError.Code.invalid {
            // A data file whose first page is blank but that nobody is creating (see
            // `metaPagesAreBlank`): not an LMDB environment after all.
            throw StoreError.notAStore(
                path: directory, reason: "LMDB cannot read it as a store (\(error.message))",
                cause: ErrorCause(error))
        }
        do {
            if !isNew {
                // Existing store: check the format before creating or writing anything.
                let metaDatabase: Database
                do {
                    metaDatabase = try environment.database(named: StoreLayout.meta, create: false)
                } catch let error as LMDBError where error.isNotFound {
                    guard try isBeingCreated(environment) else {
                        throw StoreError.notAStore(path: directory, reason: "it has no '\(StoreLayout.meta)' database")
                    }
                    metaDatabase = try environment.database(named: StoreLayout.meta, create: true)
                }
                _ = try environment.read { txn in
                    // An empty `meta`: a store another process is creating (see prepareDirectory).
                    if try txn.statistics(of: metaDatabase).entries == 0 { return StoreLayout.formatVersion }
                    return try readFormat(txn, meta: metaDatabase, path: directory)
                }
            }
            let databases = try StoreDatabases(environment.databases(named: StoreLayout.allDatabases, create: true))
            let (format, storeID) = try environment.write { txn in
                try initializeMetadata(txn, databases: databases, path: directory)
            }
            return OpenedStore(environment: environment, databases: databases, format: format, storeID: storeID)
        } catch {
            environment.close()
            throw error
        }
    }

    /// Opens the environment of an existing store read-only.
    private static func openReadOnly(_ directory: String, configuration: EnvironmentConfiguration) throws -> Environment
    {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw StoreError.notAStore(path: directory, reason: "it does not exist (a read-only open creates nothing)")
        }
        guard isDirectory.boolValue else {
            throw StoreError.notAStore(path: directory, reason: "it is not a directory")
        }
        guard FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("data.mdb")) else {
            throw StoreError.notAStore(path: directory, reason: "it has no LMDB data file (data.mdb)")
        }
        do {
            return try Environment(directory: directory, configuration: configuration)
        } catch let error as LMDBError where error.code == LMDBError.Code.invalid {
            throw StoreError.notAStore(
                path: directory, reason: "LMDB cannot read it as a store (\(error.message))",
                cause: ErrorCause(error))
        }
    }

    /// The databases, format and id of a store opened read-only: all must exist, in the current
    /// format (an older store is migrated by its first read-write open).
    private static func readOnlyDatabases(
        _ environment: Environment, path: String
    ) throws -> (StoreDatabases, UInt32, UUID) {
        let meta: Database
        do {
            meta = try environment.database(named: StoreLayout.meta, create: false)
        } catch let error as LMDBError where error.isNotFound {
            throw StoreError.notAStore(path: path, reason: "it has no '\(StoreLayout.meta)' database")
        }
        let (format, storeID) = try environment.read { txn -> (UInt32, UUID) in
            if try txn.statistics(of: meta).entries == 0 {
                throw StoreError.notAStore(
                    path: path, reason: "its metadata is not written yet (a store being created)")
            }
            let format = try readFormat(txn, meta: meta, path: path)
            return (format, try readStoreID(txn, meta: meta))
        }
        guard format >= StoreLayout.oldestReadableFormat else {
            throw StoreError.needsWriteAccess(
                path: path,
                reason: "it is in store format \(format); open it for writing once to migrate it to format "
                    + "\(StoreLayout.formatVersion)")
        }
        do {
            let databases = try StoreDatabases(environment.databases(named: StoreLayout.allDatabases, create: false))
            return (databases, format, storeID)
        } catch let error as LMDBError where error.isNotFound {
            throw StoreError.needsWriteAccess(
                path: path, reason: "some of its databases do not exist yet; open it for writing once to create them")
        }
    }
}
