import Rewind
import RewindStore

/// A machine definition as records name it: machine name and content version.
struct DefinitionName: Hashable, Sendable {
    var machine: String
    var version: String
}

/// A batch read from the device's log, ready to send.
struct PendingBatch: Sendable {
    /// The records from the requested sequence on and the definitions they name.
    var batch: RecordBatch
    /// The log's head in the read transaction the batch was read in.
    var head: UInt64
    /// The framing's size in bytes.
    var byteCount: Int
    /// The definitions the records name, whether in the batch or left out as known to the server.
    var named: Set<DefinitionName>
}

/// Reads batches from a store's log in one read transaction each: the records' stored bytes
/// (checked as decoding checks them: CRC-32C, fields), never decoded into records.
enum BatchReader {
    /// The size of the framing around the records and definitions: magic, first sequence, counts.
    static let headerBytes = 4 + 8 + 4 + 4

    /// Up to `maximumRecords` consecutive records from the first at or after global sequence
    /// `start` (sequences before it that have no record were erased: the server hears of them
    /// through erasure notices, sent first), stopping before an erased gap and before a record
    /// that would take the body past `maximumBytes` (the first record always goes), with the stored
    /// definitions they name that are not in `known` (a definition missing from the store is left
    /// out: the server says whether it holds it). A batch's records follow one another (RWB1).
    ///
    /// - Throws: ``StoreError/corruptedRecord(sequence:reason:)`` for a record that does not check,
    ///   and LMDB's errors.
    static func read(
        from store: TransitionStoreReader, start: UInt64, maximumRecords: Int, maximumBytes: Int,
        known: Set<DefinitionName>
    ) throws -> PendingBatch {
        try store.read { transaction in
            let head = try transaction.headSequence()
            var records: [[UInt8]] = []
            var definitions: [RecordBatch.Definition] = []
            var named: Set<DefinitionName> = []
            var bytes = headerBytes
            guard start <= head else {
                return PendingBatch(
                    batch: RecordBatch(firstSequence: start, records: [], definitions: []),
                    head: head, byteCount: bytes, named: named)
            }
            var first = start
            var bases: [RecordBatch.Base] = []
            var seen: Set<String> = []
            try transaction.forEachEncodedRecord(from: start) { view, encoded in
                if records.isEmpty {
                    first = view.sequence
                } else if view.sequence != first + UInt64(records.count) {
                    return .stop  // an erased gap: the next batch begins after it
                }
                var size = 4 + encoded.count
                // A session's first record in the batch may be the first its trimmed history keeps:
                // its base goes with it.
                var base: RecordBatch.Base?
                let sessionID = view.string(view.sessionField)
                if view.version > 1, seen.insert(sessionID).inserted {
                    base = try Self.base(of: view.session, at: view.version, in: transaction)
                    if let base { size += 16 + base.session.utf8.count + base.snapshot.count }
                }
                let name = DefinitionName(
                    machine: view.string(view.machineField), version: view.string(view.definitionField))
                var definition: RecordBatch.Definition?
                if !named.contains(name), !known.contains(name),
                    let document = try transaction.value(
                        forKey: Engine.definitionKey(name: name.machine, version: name.version), in: .definitions)
                {
                    definition = RecordBatch.Definition(
                        machine: name.machine, contentVersion: name.version, document: document)
                    size += 12 + name.machine.utf8.count + name.version.utf8.count + document.count
                }
                if !records.isEmpty, bytes + size + (bases.isEmpty && base != nil ? 4 : 0) > maximumBytes {
                    return .stop
                }
                bytes += size
                named.insert(name)
                if let definition { definitions.append(definition) }
                if let base {
                    if bases.isEmpty { bytes += 4 }  // the base count
                    bases.append(base)
                }
                records.append(Array(encoded))
                return records.count < maximumRecords ? .next : .stop
            }
            return PendingBatch(
                batch: RecordBatch(firstSequence: first, records: records, definitions: definitions, bases: bases),
                head: head, byteCount: bytes, named: named)
        }
    }

    /// The base of `session` when its history was trimmed to begin at `version` (the snapshot
    /// stored there, as stored), else `nil`.
    ///
    /// - Throws: ``StoreError/corruptedEntry(database:key:reason:)`` when the session's entry
    ///   names a base the store holds no snapshot of; the store's errors.
    private static func base(
        of session: SessionID, at version: UInt64, in transaction: StoreReadTransaction
    ) throws -> RecordBatch.Base? {
        guard let info = try transaction.sessionInfo(for: session), info.baseVersion == version else { return nil }
        guard
            let snapshot = try transaction.value(
                forKey: SessionSnapshot.key(session: session, version: version), in: .snapshots)
        else {
            throw StoreError.corruptedEntry(
                database: AuxiliaryDatabase.snapshots.name, key: "'\(session.excerpt)'@\(version)",
                reason: "the session's history begins at version \(version), and the store holds no snapshot of it")
        }
        return RecordBatch.Base(session: session.rawValue, version: version, snapshot: snapshot)
    }

    /// The erasure notices `destination` has not acknowledged.
    static func pendingNotices(in store: TransitionStoreReader, for destination: String) throws -> [ErasureNotice] {
        try store.read { transaction in
            try transaction.erasureNotices(after: try transaction.erasureCheckpoint(for: destination))
        }
    }

    /// The store's upload checkpoint for `destination` (see `StoreReadTransaction.uploadCheckpoint`).
    static func checkpoint(in store: TransitionStoreReader, for destination: String) throws -> UInt64? {
        try store.read { try $0.uploadCheckpoint(for: destination) }
    }

    /// Stores `next` as `destination`'s upload checkpoint, in a write transaction of its own.
    static func setCheckpoint(_ next: UInt64, in store: TransitionStore, for destination: String) throws {
        try store.write { try $0.setUploadCheckpoint(next, for: destination) }
    }
}
