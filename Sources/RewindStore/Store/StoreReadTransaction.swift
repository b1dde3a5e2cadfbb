import RewindLMDB

/// A read transaction of a ``TransitionStore``: one consistent LMDB snapshot of the log, the
/// sessions and the auxiliary databases. Handed to the closure of ``TransitionStore/read(_:)``;
/// usable only inside it.
public class StoreReadTransaction {
    let transaction: ReadTransaction
    let databases: StoreDatabases
    /// The process's newest session tail (see ``SessionTail``), when the store shares one.
    let tailCache: SessionTailCache?
    /// This snapshot's session tail, once read (a write transaction advances it as it appends).
    var loadedTail: SessionTail?

    init(transaction: ReadTransaction, databases: StoreDatabases, tailCache: SessionTailCache? = nil) {
        self.transaction = transaction
        self.databases = databases
        self.tailCache = tailCache
    }

    // MARK: The log

    /// The last global sequence given so far, 0 when the log is empty: the last record's, or the
    /// last erased sequence when the newest records were erased (their numbers are not given
    /// again).
    public func headSequence() throws -> UInt64 {
        let last = try transaction.withCursor(on: databases.log) { cursor in
            guard try cursor.last() else { return UInt64(0) }
            return try cursor.withCurrent { key, _ in try Self.sequence(ofLogKey: key) } ?? 0
        }
        return max(last, try lastErasedSequence())
    }

    /// The record at global sequence `sequence`, or `nil` when there is none.
    /// - Throws: ``StoreError/corruptedRecord(sequence:reason:)`` when it cannot be decoded.
    public func record(at sequence: UInt64) throws -> TransitionRecord? {
        try withUnsafeBytes(of: sequence.bigEndian) { key in
            try transaction.withValue(forKey: key, in: databases.log) { bytes in
                try RecordCodec.decode(bytes, sequence: sequence)
            }
        }
    }

    /// Calls `body` with each record of the whole log from global sequence `start` on, in order,
    /// until the log ends or `body` returns ``IterationControl/stop``. Records are decoded one at
    /// a time from LMDB's map.
    public func forEachRecord(
        from start: UInt64 = 1, _ body: (TransitionRecord) throws -> IterationControl
    ) throws {
        var recent = RecentStrings()
        try transaction.forEach(in: databases.log, from: StoreKey.uint64(start)) { key, value in
            let sequence = try Self.sequence(ofLogKey: key)
            return try body(try RecordCodec.decode(value, sequence: sequence, reusing: &recent))
        }
    }

    /// Calls `body` with a checked, borrowed view of each record of the whole log from global
    /// sequence `start` on, in order, until the log ends or `body` returns
    /// ``IterationControl/stop``. Nothing is copied out of LMDB's map unless `body` does; a view
    /// is valid only during its call.
    /// - Throws: ``StoreError/corruptedRecord(sequence:reason:)`` as ``forEachRecord(from:_:)``.
    package func forEachRecordView(
        from start: UInt64 = 1, _ body: (RecordView) throws -> IterationControl
    ) throws {
        try transaction.forEach(in: databases.log, from: StoreKey.uint64(start)) { key, value in
            let sequence = try Self.sequence(ofLogKey: key)
            return try body(try RecordView(value, sequence: sequence))
        }
    }

    /// Up to `limit` records of the whole log from global sequence `start` on, in order.
    public func records(from start: UInt64 = 1, limit: Int = .max) throws -> [TransitionRecord] {
        var records: [TransitionRecord] = []
        guard limit > 0 else { return records }
        try forEachRecord(from: start) { record in
            records.append(record)
            return records.count < limit ? .next : .stop
        }
        return records
    }

    /// Whether this transaction writes: it then takes the process's tail out of the cache (and
    /// gives its own back once committed) instead of sharing it.
    var isWriting: Bool { false }

    // MARK: Helpers

    static func sequence(ofLogKey key: UnsafeRawBufferPointer) throws -> UInt64 {
        guard let sequence = StoreKey.uint64(from: key) else {
            throw StoreError.corruptedEntry(
                database: StoreLayout.log, key: "of \(key.count) bytes",
                reason: "log keys are 8-byte sequences")
        }
        return sequence
    }
}
