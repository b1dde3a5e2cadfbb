import RewindLMDB

/// What ``StoreWriteTransaction/trimHistory(of:before:reason:at:)`` removed.
package struct StoreTrim: Sendable {
    /// The session's entry after the trim (its ``SessionInfo/baseVersion`` is the new base).
    package var info: SessionInfo
    /// The number of records removed (versions from the old first version to the base, excluded).
    package var records: Int = 0
    /// The number of snapshots removed (those below the base).
    package var snapshots: Int = 0
    /// The notice written for the fleet server, or `nil` when nothing was removed.
    package var notice: ErasureNotice?

    /// Nothing removed (yet) from the session `info` describes.
    package init(info: SessionInfo) {
        self.info = info
    }
}

/// Trimming a session's history: its records, index blocks and snapshots below a base version go,
/// the session stays (its entry remembers the base), the removed sequences become erased ranges
/// and a `records` notice tells the fleet server. Writing the snapshot at the base is the
/// engine's part (same transaction, before this).
extension StoreWriteTransaction {
    /// Makes `base` the first version of `session`: removes its records of the versions before
    /// `base` (the record of `base` stays), the `session-index` blocks that hold only such
    /// versions, and its snapshots before `base`; records `base` in the session's entry. A base at
    /// or below the session's first version removes nothing. The caller has written the snapshot
    /// at `base` in this transaction. The notice is of kind `records` (the fleet server trims its
    /// copy too) when `reason` is ``ErasureReason/requested``, `retention` (it keeps its copy: the
    /// device only saves its storage) when it is ``ErasureReason/retention``.
    ///
    /// - Precondition: `session` has an entry and `base` is at most its head version (the engine
    ///   checks both and throws typed errors first).
    /// - Throws: ``StoreError/corruptedEntry(database:key:reason:)`` when the session's index does
    ///   not hold its versions below `base`, the store's errors reading the session, `LMDBError`.
    package func trimHistory(
        of session: SessionID, before base: UInt64, reason: ErasureReason, at time: Timestamp
    ) throws -> StoreTrim {
        // Every head becomes its entry and the mark moves to the log's end, so this entry is the
        // session's head and any process's cached tail is stale by its mark.
        try loadTail()
        try writeTailIfLonger(than: 0)
        guard var head = try storedEntry(for: session) else {
            throw StoreError.corruptedEntry(
                database: StoreLayout.sessions, key: "'\(session.excerpt)'", reason: "the session has no entry to trim")
        }
        let first = head.info.firstVersion
        guard base > first else { return StoreTrim(info: head.info) }
        precondition(base <= head.info.headVersion, "the engine checks the base against the head")

        var sequences: [UInt64] = []
        try forEachSequence(of: session, from: first, direction: .forward) { version, sequence in
            guard version < base else { return .stop }
            sequences.append(sequence)
            return .next
        }
        guard sequences.count == Int(base - first) else {
            throw StoreError.corruptedEntry(
                database: StoreLayout.sessionIndex, key: "'\(session.excerpt)'",
                reason: "it holds \(sequences.count) versions from \(first) to \(base - 1)")
        }
        for sequence in sequences {
            _ = try writeTransaction.delete(StoreKey.uint64(sequence), in: databases.log)
        }
        // Blocks that end before the base go; the block holding the base stays whole (its
        // versions below the base are never read again).
        let blockSize = UInt64(StoreLayout.indexBlockSize)
        var blockStart = (first - 1) / blockSize * blockSize + 1
        while blockStart + blockSize <= base {
            _ = try writeTransaction.delete(StoreKey.compound(session.rawValue, blockStart), in: databases.sessionIndex)
            blockStart += blockSize
        }
        var trim = StoreTrim(info: head.info)
        let snapshots = databases.handle(for: .snapshots)
        var snapshotKeys: [[UInt8]] = []
        let prefix = StoreKey.compoundPrefix(session.rawValue)
        try transaction.forEach(in: snapshots, from: prefix) { key, _ in
            guard key.starts(with: prefix), let split = StoreKey.splitCompound(key), split.number < base else {
                return .stop
            }
            snapshotKeys.append(Array(key))
            return .next
        }
        for key in snapshotKeys { _ = try writeTransaction.delete(key, in: snapshots) }

        head.info.baseVersion = base
        head.info.recordCount = head.info.headVersion - base + 1
        var entry: [UInt8] = []
        SessionInfoCodec.encode(head, into: &entry)
        try writeTransaction.put(entry, forKey: Array(session.rawValue.utf8), in: databases.sessions)

        sequences.sort()
        let ranges = sequences.consecutiveRanges
        for range in ranges { try addErasedRange(range) }
        let notice = ErasureNotice(
            number: try lastErasureNoticeNumber() + 1, kind: reason == .retention ? .retention : .records,
            erasedAt: time, ranges: ranges)
        try writeErasureNotice(notice)
        trim.info = head.info
        trim.records = sequences.count
        trim.snapshots = snapshotKeys.count
        trim.notice = notice
        return trim
    }
}
