/// A read transaction of a ``TransitionStore``: one consistent LMDB snapshot of the log, the
/// sessions and the auxiliary databases. Handed to the closure of ``TransitionStore/read(_:)``;
/// usable only inside it.
public class StoreReadTransaction {
    let transaction: ReadTransaction
    let databases: StoreDatabases

    init(transaction: ReadTransaction, databases: StoreDatabases) {
        self.transaction = transaction
        self.databases = databases
    }

    // MARK: The log

    /// The global sequence of the last record, 0 when the log is empty.
    public func headSequence() throws -> UInt64 {
        try transaction.withCursor(on: databases.log) { cursor in
            guard try cursor.last() else { return 0 }
            return try cursor.withCurrent { key, _ in try Self.sequence(ofLogKey: key) } ?? 0
        }
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
        try transaction.forEach(in: databases.log, from: StoreKey.uint64(start)) { key, value in
            let sequence = try Self.sequence(ofLogKey: key)
            return try body(try RecordCodec.decode(value, sequence: sequence))
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

    // MARK: Sessions

    /// What the store knows about `session`, or `nil` when it has no records.
    public func sessionInfo(for session: SessionID) throws -> SessionInfo? {
        try transaction.withValue(forKey: Array(session.rawValue.utf8), in: databases.sessions) { bytes in
            try SessionInfoCodec.decode(bytes, session: session)
        }
    }

    /// Calls `body` with every session, ordered by id, until `body` returns ``IterationControl/stop``.
    public func forEachSession(_ body: (SessionInfo) throws -> IterationControl) throws {
        try transaction.forEach(in: databases.sessions) { key, value in
            let text = String(decoding: key, as: UTF8.self)
            guard let session = try? SessionID(text) else {
                throw StoreError.corruptedEntry(database: StoreLayout.sessions, key: text.debugDescription,
                                                reason: "the key is not a valid session id")
            }
            return try body(try SessionInfoCodec.decode(value, session: session))
        }
    }

    /// Every session with its head version and machine, ordered by id.
    public func sessions() throws -> [SessionInfo] {
        var sessions: [SessionInfo] = []
        try forEachSession { sessions.append($0); return .next }
        return sessions
    }

    /// Calls `body` with the records of `session` from version `start` on, forward (ascending
    /// versions) or backward (descending), until the session's records run out or `body` returns
    /// ``IterationControl/stop``. Only this session's index entries are visited. `start` defaults
    /// to the first version forward and to the head backward.
    public func forEachRecord(
        of session: SessionID, from start: UInt64? = nil, direction: IterationDirection = .forward,
        _ body: (TransitionRecord) throws -> IterationControl
    ) throws {
        let prefix = StoreKey.compoundPrefix(session.rawValue)
        let first = start ?? (direction == .forward ? 0 : .max)
        let startKey = StoreKey.compound(session.rawValue, first)
        try transaction.forEach(in: databases.sessionIndex, from: startKey, direction: direction) { key, value in
            guard key.count == prefix.count + 8,
                  key.prefix(prefix.count).elementsEqual(prefix) else { return .stop }
            guard let sequence = StoreKey.uint64(from: value) else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.sessionIndex, key: "'\(session)' version \(StoreKey.uint64(from: UnsafeRawBufferPointer(rebasing: key.suffix(8))) ?? 0)",
                    reason: "the value is \(value.count) bytes, not an 8-byte sequence")
            }
            guard let record = try record(at: sequence) else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.sessionIndex, key: "'\(session)'",
                    reason: "it points at sequence \(sequence), which is not in the log")
            }
            return try body(record)
        }
    }

    /// The records of `session` whose versions lie in `versions`, ascending (forward) or
    /// descending (backward). Only those records are read.
    public func records(
        of session: SessionID, versions: ClosedRange<UInt64>, direction: IterationDirection = .forward
    ) throws -> [TransitionRecord] {
        var records: [TransitionRecord] = []
        let start = direction == .forward ? versions.lowerBound : versions.upperBound
        try forEachRecord(of: session, from: start, direction: direction) { record in
            guard versions.contains(record.version) else { return .stop }
            records.append(record)
            return .next
        }
        return records
    }

    /// Up to `limit` records of `session` from version `start` on, in `direction`.
    public func records(
        of session: SessionID, from start: UInt64? = nil, direction: IterationDirection = .forward,
        limit: Int = .max
    ) throws -> [TransitionRecord] {
        var records: [TransitionRecord] = []
        guard limit > 0 else { return records }
        try forEachRecord(of: session, from: start, direction: direction) { record in
            records.append(record)
            return records.count < limit ? .next : .stop
        }
        return records
    }

    // MARK: Auxiliary databases

    /// A copy of the value under `key` in `database`, or `nil`.
    public func value(forKey key: [UInt8], in database: AuxiliaryDatabase) throws -> [UInt8]? {
        try transaction.get(key, in: databases.handle(for: database))
    }

    /// Lends the value under `key` in `database` to `body` (valid only during `body`), or returns
    /// `nil` when the key is absent.
    public func withValue<R>(
        forKey key: [UInt8], in database: AuxiliaryDatabase, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        try transaction.withValue(forKey: key, in: databases.handle(for: database), body)
    }

    /// Iterates `database` from `start` in `direction` (see `ReadTransaction.forEach`), lending
    /// each key and value to `body`.
    public func forEach(
        in database: AuxiliaryDatabase, from start: [UInt8]? = nil, direction: IterationDirection = .forward,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> IterationControl
    ) throws {
        try transaction.forEach(in: databases.handle(for: database), from: start, direction: direction, body)
    }

    // MARK: Helpers

    static func sequence(ofLogKey key: UnsafeRawBufferPointer) throws -> UInt64 {
        guard let sequence = StoreKey.uint64(from: key) else {
            throw StoreError.corruptedEntry(database: StoreLayout.log, key: "of \(key.count) bytes",
                                            reason: "log keys are 8-byte sequences")
        }
        return sequence
    }
}
