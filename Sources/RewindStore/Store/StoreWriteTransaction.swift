/// A write transaction of a ``TransitionStore``: appends to the log and writes the auxiliary
/// databases, all committed together or not at all. Handed to the closure of
/// ``TransitionStore/write(_:)``; usable only inside it. Reads in it see its own writes.
///
/// Appends to several sessions may share one transaction (group commit): an append that fails
/// its expected version or validation throws **before writing anything**, and the transaction
/// stays usable for the other sessions' appends.
public final class StoreWriteTransaction: StoreReadTransaction {
    private let writeTransaction: WriteTransaction
    /// The encode buffer, reused by every record of this transaction.
    private var buffer: [UInt8] = []
    /// The session-index key and block buffers, reused likewise.
    private var keyBuffer: [UInt8] = []
    private var blockBuffer: [UInt8] = []
    /// The next global sequence, read from the log on the first append.
    private var nextSequence: UInt64?

    /// Decoded session entries this process wrote, checked byte for byte against LMDB.
    private let headCache: SessionHeadCache?

    init(transaction: WriteTransaction, databases: StoreDatabases, headCache: SessionHeadCache? = nil) {
        writeTransaction = transaction
        self.headCache = headCache
        super.init(transaction: transaction, databases: databases)
        buffer.reserveCapacity(1024)
        keyBuffer.reserveCapacity(64)
    }

    /// Appends `transitions` to `session` as its next versions, at the next global sequences.
    ///
    /// First checks `expectedVersion` against the session's head and validates every transition;
    /// a failure throws without writing anything and leaves the transaction usable.
    /// - Throws: ``StoreError/versionConflict(session:expected:actual:)``,
    ///   ``StoreError/invalidTransition(session:index:reason:)``, ``StoreError/emptyAppend(session:)``,
    ///   or an `LMDBError`.
    @discardableResult
    public func append(
        _ transitions: [Transition], to session: SessionID, expectedVersion: ExpectedVersion = .any
    ) throws -> AppendResult {
        guard !transitions.isEmpty else { throw StoreError.emptyAppend(session: session) }
        for (index, transition) in transitions.enumerated() {
            if let problem = transition.problem {
                throw StoreError.invalidTransition(session: session, index: index, reason: problem)
            }
        }
        let existing = try storedHead(of: session)
        let head = existing?.info.headVersion ?? 0
        guard expectedVersion.isSatisfied(byHead: head) else {
            throw StoreError.versionConflict(session: session, expected: expectedVersion, actual: head)
        }
        let firstSequence = try nextSequence ?? (headSequence() + 1)

        // Validated: from here on, only LMDB failures (which fail the whole transaction) can throw.
        var sequence = firstSequence
        var version = head
        var recent = existing?.recent ?? []
        let log = databases.log
        let blockSize = StoreLayout.indexBlockSize
        for transition in transitions {
            version += 1
            buffer.removeAll(keepingCapacity: true)
            RecordCodec.encode(sequence: sequence, session: session, version: version,
                               transition: transition, into: &buffer)
            try withUnsafeBytes(of: sequence.bigEndian) { key in
                try buffer.withUnsafeBytes { value in
                    try writeTransaction.put(value, forKey: key, in: log, flags: .append)
                }
            }
            recent.append(sequence)
            if recent.count == blockSize {
                // The block is full: it goes to the session index, keyed by its first version.
                try putIndexBlock(recent, of: session, from: version - UInt64(blockSize) + 1)
                recent.removeAll(keepingCapacity: true)
            }
            sequence += 1
        }
        nextSequence = sequence

        let last = transitions[transitions.count - 1]
        let info = SessionInfo(
            session: session, headVersion: version, headSequence: sequence - 1, machine: last.machine,
            recordCount: (existing?.info.recordCount ?? 0) + UInt64(transitions.count),
            created: existing?.info.created ?? transitions[0].timestamp, updated: last.timestamp,
            origin: existing == nil ? transitions[0].origin : existing?.info.origin)
        buffer.removeAll(keepingCapacity: true)
        let newHead = SessionHead(info: info, recent: recent)
        SessionInfoCodec.encode(newHead, into: &buffer)
        headCache?.remember(newHead, as: buffer)
        try buffer.withUnsafeBytes { value in
            var sessionKey = session.rawValue
            try sessionKey.withUTF8 { keyBytes in
                try writeTransaction.put(value, forKey: UnsafeRawBufferPointer(keyBytes), in: databases.sessions)
            }
        }
        return AppendResult(
            session: session, firstVersion: head + 1, lastVersion: version,
            firstSequence: firstSequence, lastSequence: sequence - 1)
    }

    /// The session's entry, taken from the cache when LMDB holds exactly the bytes it remembers.
    private func storedHead(of session: SessionID) throws -> SessionHead? {
        guard let headCache else { return try sessionHead(for: session) }
        var key = session.rawValue
        return try key.withUTF8 { keyBytes in
            try transaction.withValue(forKey: UnsafeRawBufferPointer(keyBytes), in: databases.sessions) { bytes in
                if let cached = headCache.head(for: session, stored: bytes) { return cached }
                return try SessionInfoCodec.decode(bytes, session: session)
            }
        }
    }

    /// Writes a full block of `session`'s index: the sequences of versions `firstVersion…`.
    private func putIndexBlock(_ sequences: [UInt64], of session: SessionID, from firstVersion: UInt64) throws {
        keyBuffer.removeAll(keepingCapacity: true)
        StoreKey.appendCompound(session.rawValue, firstVersion, to: &keyBuffer)
        blockBuffer.removeAll(keepingCapacity: true)
        for sequence in sequences { blockBuffer.appendBigEndian(sequence) }
        try keyBuffer.withUnsafeBytes { key in
            try blockBuffer.withUnsafeBytes { value in
                try writeTransaction.put(value, forKey: key, in: databases.sessionIndex)
            }
        }
    }

    /// Stores `value` under `key` in the auxiliary `database`.
    public func put(_ value: [UInt8], forKey key: [UInt8], in database: AuxiliaryDatabase) throws {
        try writeTransaction.put(value, forKey: key, in: databases.handle(for: database))
    }

    /// Deletes `key` from the auxiliary `database`; returns whether it was there.
    @discardableResult
    public func delete(_ key: [UInt8], in database: AuxiliaryDatabase) throws -> Bool {
        try writeTransaction.delete(key, in: databases.handle(for: database))
    }

    /// Deletes every entry of the auxiliary `database` (e.g. to rebuild a projection).
    public func removeAll(in database: AuxiliaryDatabase) throws {
        try writeTransaction.removeAll(in: databases.handle(for: database))
    }
}

/// Where an append put its records.
public struct AppendResult: Sendable, Hashable {
    /// The session appended to.
    public let session: SessionID
    /// The version of the first appended record.
    public let firstVersion: UInt64
    /// The version of the last appended record: the session's new head.
    public let lastVersion: UInt64
    /// The global sequence of the first appended record.
    public let firstSequence: UInt64
    /// The global sequence of the last appended record.
    public let lastSequence: UInt64
}

/// One session's part of a batch for ``TransitionStore/append(_:)``.
public struct SessionAppend: Sendable, Hashable {
    /// The session to append to.
    public var session: SessionID
    /// The version the session must be at.
    public var expectedVersion: ExpectedVersion
    /// The transitions to append, in order.
    public var transitions: [Transition]

    /// Creates a session append.
    public init(session: SessionID, expectedVersion: ExpectedVersion = .any, transitions: [Transition]) {
        self.session = session
        self.expectedVersion = expectedVersion
        self.transitions = transitions
    }
}
