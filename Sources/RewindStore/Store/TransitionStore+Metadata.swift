import Foundation
import RewindLMDB

/// The store's metadata in `meta`: its format version and id, written when it is created.
extension TransitionStore {
    /// The store format in `meta`; throws when it is missing or newer than supported.
    static func readFormat(_ txn: ReadTransaction, meta: Database, path: String) throws -> UInt32 {
        guard let bytes = try txn.get(StoreLayout.formatVersionKey, in: meta) else {
            throw StoreError.notAStore(path: path, reason: "its metadata has no format version")
        }
        guard bytes.count == 4 else {
            throw StoreError.corruptedEntry(
                database: StoreLayout.meta, key: "'format-version'",
                reason: "\(bytes.count) bytes instead of 4")
        }
        let format = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard format <= StoreLayout.formatVersion else {
            throw StoreError.unsupportedFormat(found: format, supported: StoreLayout.formatVersion)
        }
        return format
    }

    /// Writes the metadata of a new store (format, id, creation time) or reads an existing one's,
    /// migrating a store of an older format (see ``StoreMigration``).
    static func initializeMetadata(
        _ txn: WriteTransaction, databases: StoreDatabases, path: String
    ) throws -> (UInt32, UUID) {
        let meta = databases.meta
        if try txn.get(StoreLayout.formatVersionKey, in: meta) == nil {
            let id = UUID()
            let format = StoreLayout.formatVersion
            try txn.put(
                withUnsafeBytes(of: format.bigEndian) { Array($0) }, forKey: StoreLayout.formatVersionKey, in: meta)
            try txn.put(withUnsafeBytes(of: id.uuid) { Array($0) }, forKey: StoreLayout.storeIDKey, in: meta)
            var created: [UInt8] = []
            created.putLittleEndian(Timestamp.now().microsecondsSince1970)
            try txn.put(created, forKey: StoreLayout.createdKey, in: meta)
            try txn.put(StoreKey.uint64(0), forKey: StoreLayout.sessionsThroughKey, in: meta)
            return (format, id)
        }
        var format = try readFormat(txn, meta: meta, path: path)
        if format < StoreLayout.formatVersion {
            format = try StoreMigration.migrate(txn, databases: databases, from: format)
        }
        return (format, try readStoreID(txn, meta: meta))
    }

    /// The store id in `meta`.
    static func readStoreID(_ txn: ReadTransaction, meta: Database) throws -> UUID {
        guard let idBytes = try txn.get(StoreLayout.storeIDKey, in: meta), idBytes.count == 16 else {
            throw StoreError.corruptedEntry(
                database: StoreLayout.meta, key: "'store-id'", reason: "missing or not 16 bytes")
        }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: idBytes) }
        return UUID(uuid: uuid)
    }
}
