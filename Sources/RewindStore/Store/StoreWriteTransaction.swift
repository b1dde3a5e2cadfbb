import RewindLMDB

/// A write transaction of a ``TransitionStore``: appends to the log and writes the auxiliary
/// databases, all committed together or not at all. Handed to the closure of
/// ``TransitionStore/write(_:)``; usable only inside it. Reads in it see its own writes.
///
/// Appends to several sessions may share one transaction (group commit): an append that fails
/// its expected version or validation throws **before writing anything**, and the transaction
/// stays usable for the other sessions' appends.
public final class StoreWriteTransaction: StoreReadTransaction {
    let writeTransaction: WriteTransaction
    /// The session entries' encode buffer, reused by every entry this transaction writes out.
    /// Like the one below, it allocates on first use only: most transactions (one session's
    /// append, no tail written out, no index block completed) never use them.
    private var buffer: [UInt8] = []
    /// The session-index key buffer, reused likewise.
    private var keyBuffer: [UInt8] = []

    init(transaction: WriteTransaction, databases: StoreDatabases, tailCache: SessionTailCache? = nil) {
        writeTransaction = transaction
        super.init(transaction: transaction, databases: databases, tailCache: tailCache)
    }

    override var isWriting: Bool { true }

    /// Appends `transitions` to `session` as its next versions, at the next global sequences.
    ///
    /// First checks `expectedVersion` against the session's head and validates every transition;
    /// a failure throws without writing anything and leaves the transaction usable.
    /// - Throws: ``StoreError/versionConflict(session:expected:actual:)``,
    ///   ``StoreError/invalidTransition(session:index:reason:)``, ``StoreError/emptyAppend(session:)``,
    ///   ``StoreError/invalidSessionID(_:reason:)`` when the append would create a session whose
    ///   id has a control character (``SessionID/init(new:)``),
    ///   ``StoreError/sessionErased(session:erasure:)`` when it would create a session whose id was
    ///   erased, or an `LMDBError`.
    @discardableResult
    public func append(
        _ transitions: [TransitionDraft], to session: SessionID, expectedVersion: ExpectedVersion = .any
    ) throws -> AppendResult {
        try append(transitions, to: session, expectedVersion: expectedVersion, base: nil)
    }

    /// Creates `session` with a trimmed history that begins at version `base` (an imported or
    /// forked trimmed session, see ``SessionInfo/baseVersion``): `transitions` become its versions
    /// `base…`, at the next global sequences. The caller writes the snapshot at `base` (the
    /// session's state there) in the same transaction. A `base` of 1 is a plain new session.
    ///
    /// - Throws: ``StoreError/versionConflict(session:expected:actual:)`` when `session` exists,
    ///   and the errors of ``append(_:to:expectedVersion:)``.
    @discardableResult
    package func append(_ transitions: [TransitionDraft], toNewSession session: SessionID, base: UInt64) throws
        -> AppendResult
    {
        guard base > 1 else { return try append(transitions, to: session, expectedVersion: .noStream, base: nil) }
        let result = try append(transitions, to: session, expectedVersion: .noStream, base: base)
        // A process that rebuilds the tail from the log would begin a session without an entry at
        // version 1: the entry, with its base, is written now (every head with it, the mark moved).
        try writeTailIfLonger(than: 0)
        return result
    }

    private func append(
        _ transitions: [TransitionDraft], to session: SessionID, expectedVersion: ExpectedVersion, base: UInt64?
    ) throws -> AppendResult {
        guard !transitions.isEmpty else { throw StoreError.emptyAppend(session: session) }
        for index in transitions.indices {
            if let problem = transitions[index].problem {
                throw StoreError.invalidTransition(session: session, index: index, reason: problem)
            }
        }
        // The tail ends where the log does (this transaction's own appends included).
        let firstSequence = try loadTail() + 1
        // The tail is taken out of the transaction while it changes (a move, not a copy) and its
        // session's head is changed in place where the dictionary holds it: one hash of the id
        // per append, no head copied (its strings and sequences would be retained and released),
        // no entry removed and inserted again.
        var tail = loadedTail.take() ?? SessionTail(mark: firstSequence - 1)
        defer { loadedTail = tail }
        let index: [SessionID: SessionHead].Index
        if let found = tail.heads.index(forKey: session) {
            // A session the tail holds exists: it cannot begin again at a base.
            if base != nil {
                throw StoreError.versionConflict(
                    session: session, expected: .noStream, actual: tail.heads.values[found].info.headVersion)
            }
            index = found
        } else {
            let existing = try storedEntry(for: session)
            // A new session's id has no control characters; old sessions whose ids have some
            // (written before the rule) still take appends.
            if existing == nil, let problem = SessionID.problemForNewSession(with: session.rawValue) {
                throw StoreError.invalidSessionID(session.rawValue, reason: problem)
            }
            // An erased session's id stays erased: nothing may bring it back.
            if existing == nil, let erasure = try erasure(of: session) {
                throw StoreError.sessionErased(session: session, erasure: erasure)
            }
            var stored = existing ?? .empty(session, created: transitions[0].timestamp, origin: transitions[0].origin)
            // Checked before the head joins the tail (`appendRecords` checks again, in place).
            let head = stored.info.headVersion
            guard expectedVersion.isSatisfied(byHead: head) else {
                throw StoreError.versionConflict(session: session, expected: expectedVersion, actual: head)
            }
            if let base { stored.begin(at: base) }
            tail.heads[session] = stored
            guard let inserted = tail.heads.index(forKey: session) else {
                preconditionFailure("a session's head is in the tail right after it was inserted")
            }
            index = inserted
        }
        // One in-place access to the head for the check and all the records.
        let result = try appendRecords(
            transitions, of: session, expectedVersion: base.map { .exact($0 - 1) } ?? expectedVersion,
            from: firstSequence,
            to: &tail.heads.values[index])
        // The session's entry is written when the tail is written out (see `SessionTail`).
        tail.end = result.lastSequence
        return result
    }

    /// Checks `expectedVersion` against `head` (throwing before anything is written), then writes
    /// `transitions` to the log from global `firstSequence` on as `session`'s next versions,
    /// advancing `head` by each (and writing a full index block when one completes).
    ///
    /// The transitions are read where the array holds them and the head is changed in place: no
    /// `TransitionDraft` or `SessionHead` is copied (their strings and arrays would be retained and
    /// released for every record).
    private func appendRecords(
        _ transitions: [TransitionDraft], of session: SessionID, expectedVersion: ExpectedVersion,
        from firstSequence: UInt64, to head: inout SessionHead
    ) throws -> AppendResult {
        let before = head.info.headVersion
        guard expectedVersion.isSatisfied(byHead: before) else {
            throw StoreError.versionConflict(session: session, expected: expectedVersion, actual: before)
        }
        var sequence = firstSequence
        let log = databases.log
        try transitions.withUnsafeBufferPointer { transitions in
            guard let first = transitions.baseAddress else { return }
            for offset in transitions.indices {
                // Encoded straight into the space LMDB reserves in its page: no buffer, no copy. The
                // codec reads the draft through a pointer (see `RecordCodec.encodedSize`).
                let version = head.info.headVersion + 1
                let transition = first + offset
                let size = RecordCodec.encodedSize(
                    sequence: sequence, session: session, version: version, transition: transition)
                let key = sequence.bigEndian
                try withUnsafeBytes(of: key) { key in
                    try writeTransaction.put(reserving: size, forKey: key, in: log, flags: .append) { value in
                        RecordCodec.encode(
                            sequence: sequence, session: session, version: version, transition: transition, into: value)
                    }
                }
                if head.advance(
                    sequence: sequence, machine: transition.pointee.machine, timestamp: transition.pointee.timestamp)
                {
                    // The block is full: it goes to the session index, keyed by its first version.
                    try putIndexBlock(head.recent, of: session, from: version - UInt64(StoreLayout.indexBlockSize) + 1)
                    head.startNextBlock()
                }
                sequence += 1
            }
        }
        return AppendResult(
            session: session, firstVersion: before + 1, lastVersion: head.info.headVersion,
            firstSequence: firstSequence, lastSequence: sequence - 1)
    }

    /// Writes the session tail out when it is longer than `maximumLength` records: every head in
    /// it becomes its session's `sessions` entry and the `sessions-through` mark moves to the end
    /// of the log. Called once the transaction's appends are done, before it commits.
    func writeTailIfLonger(than maximumLength: UInt64) throws {
        guard var tail = loadedTail.take() else { return }
        defer { loadedTail = tail }
        guard tail.length > maximumLength else { return }
        for (key, head) in tail.heads {
            buffer.removeAll(keepingCapacity: true)
            SessionInfoCodec.encode(head, into: &buffer)
            var sessionKey = key.rawValue
            try buffer.withUnsafeBytes { value in
                try sessionKey.withUTF8 { keyBytes in
                    try writeTransaction.put(value, forKey: UnsafeRawBufferPointer(keyBytes), in: databases.sessions)
                }
            }
        }
        try writeTransaction.put(StoreKey.uint64(tail.end), forKey: StoreLayout.sessionsThroughKey, in: databases.meta)
        // An empty tail from the end on, its table's capacity kept for the sessions that come back.
        tail.heads.removeAll(keepingCapacity: true)
        tail.mark = tail.end
    }

    /// Writes a full block of `session`'s index: the sequences of versions `firstVersion…`.
    private func putIndexBlock(_ sequences: [UInt64], of session: SessionID, from firstVersion: UInt64) throws {
        keyBuffer.removeAll(keepingCapacity: true)
        StoreKey.appendCompound(session.rawValue, firstVersion, to: &keyBuffer)
        try StoreLayout.withIndexBlock(sequences) { block in
            try keyBuffer.withUnsafeBytes { key in
                try writeTransaction.put(block, forKey: key, in: databases.sessionIndex)
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
    public var transitions: [TransitionDraft]

    /// Creates a session append.
    public init(session: SessionID, expectedVersion: ExpectedVersion = .any, transitions: [TransitionDraft]) {
        self.session = session
        self.expectedVersion = expectedVersion
        self.transitions = transitions
    }
}
