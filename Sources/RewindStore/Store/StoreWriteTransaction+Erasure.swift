import RewindLMDB

/// What ``StoreWriteTransaction/eraseSessions(_:reason:at:)`` removed.
package struct StoreErasure: Sendable {
    /// The sessions erased (those the store held), in the order they were asked for.
    package var sessions: [SessionID] = []
    /// Their records, in log order: what the projections' states must no longer contain.
    package var records: [TransitionRecord] = []
    /// The notice written for the fleet server, or `nil` when nothing was erased.
    package var notice: ErasureNotice?
}

/// Erasing sessions: their records, index blocks, entries and snapshots go, their sequences become
/// erased ranges (never given again), a tombstone remembers that the id was erased, and a notice
/// tells the fleet server. Projection states are the engine's part (same transaction).
extension StoreWriteTransaction {
    /// Erases `sessions` (ids the store does not hold are passed over), in this transaction.
    ///
    /// The session tail is written out first, so every process's cached tail (which may hold an
    /// erased session's head) is stale by its mark and read again. Erased bytes leave the B-trees
    /// here; they leave the data file's free pages only when the store is compacted.
    ///
    /// - Throws: the store's errors reading the sessions (nothing is changed then), `LMDBError`.
    package func eraseSessions(
        _ sessions: [SessionID], reason: ErasureReason, at time: Timestamp
    ) throws -> StoreErasure {
        var erasure = StoreErasure()
        var sequences: [UInt64] = []
        var seen = Set<SessionID>()
        for session in sessions where seen.insert(session).inserted {
            guard try sessionHead(for: session) != nil else { continue }
            var records: [TransitionRecord] = []
            try forEachRecord(of: session) { record in
                records.append(record)
                return .next
            }
            erasure.sessions.append(session)
            erasure.records += records
            sequences += records.map(\.sequence)
        }
        guard !erasure.sessions.isEmpty else { return erasure }
        erasure.records.sort { $0.sequence < $1.sequence }
        sequences.sort()

        // Every head becomes its entry and the mark moves to the log's end (see above).
        try loadTail()
        try writeTailIfLonger(than: 0)
        let log = databases.log
        for sequence in sequences {
            _ = try writeTransaction.delete(StoreKey.uint64(sequence), in: log)
        }
        let secret = try storeSecretCreatingIfNeeded()
        var tombstone: [UInt8] = []
        tombstone.putLittleEndian(time.microsecondsSince1970)
        tombstone.append(reason.rawValue)
        for session in erasure.sessions {
            try deleteKeys(withPrefix: StoreKey.compoundPrefix(session.rawValue), in: databases.sessionIndex)
            try deleteKeys(withPrefix: StoreKey.compoundPrefix(session.rawValue), in: databases.handle(for: .snapshots))
            _ = try writeTransaction.delete(Array(session.rawValue.utf8), in: databases.sessions)
            try writeTransaction.put(
                tombstone, forKey: Self.tombstoneKey(of: session, secret: secret), in: databases.meta)
        }
        let ranges = sequences.consecutiveRanges
        for range in ranges { try addErasedRange(range) }
        // Retention saves the device's storage; it does not ask the fleet to forget (its own
        // retention is the app's, per app on the server).
        let notice = ErasureNotice(
            number: try lastErasureNoticeNumber() + 1, kind: reason == .retention ? .retention : .sessions,
            erasedAt: time, ranges: ranges)
        try writeErasureNotice(notice)
        erasure.notice = notice
        return erasure
    }

    /// Writes `notice` for the uploader, remembers its number as the newest, and marks the store
    /// with the current format (older code must refuse a log with erased ranges or trimmed sessions).
    func writeErasureNotice(_ notice: ErasureNotice) throws {
        try writeTransaction.put(
            ErasureNoticeCodec.encode(notice), forKey: ErasureNoticeCodec.key(of: notice.number),
            in: databases.meta)
        try writeTransaction.put(
            StoreKey.uint64(notice.number), forKey: StoreLayout.lastErasureNoticeKey, in: databases.meta)
        try writeTransaction.put(
            withUnsafeBytes(of: StoreLayout.formatVersion.bigEndian) { Array($0) },
            forKey: StoreLayout.formatVersionKey, in: databases.meta)
    }

    /// Adds `range` to the erased ranges, merged with the ranges it touches.
    func addErasedRange(_ range: ClosedRange<UInt64>) throws {
        let prefix = StoreLayout.erasedRangePrefix
        var merged = range
        var replaced: [UInt64] = []
        // A range ending just before (or overlapping) this one's start.
        try transaction.forEach(
            in: databases.meta, from: prefix + StoreKey.uint64(range.lowerBound), direction: .backward
        ) { key, value in
            guard key.starts(with: prefix), let before = try Self.erasedRange(key: key, value: value) else {
                return .stop
            }
            if before.upperBound &+ 1 >= range.lowerBound {
                merged = min(before.lowerBound, merged.lowerBound)...max(before.upperBound, merged.upperBound)
                replaced.append(before.lowerBound)
            }
            return .stop
        }
        // Ranges starting within or just after it.
        try transaction.forEach(in: databases.meta, from: prefix + StoreKey.uint64(range.lowerBound)) { key, value in
            guard key.starts(with: prefix), let after = try Self.erasedRange(key: key, value: value),
                after.lowerBound <= merged.upperBound &+ 1
            else { return .stop }
            merged = merged.lowerBound...max(after.upperBound, merged.upperBound)
            replaced.append(after.lowerBound)
            return .next
        }
        for first in Set(replaced) {
            _ = try writeTransaction.delete(prefix + StoreKey.uint64(first), in: databases.meta)
        }
        try writeTransaction.put(
            StoreKey.uint64(merged.upperBound), forKey: prefix + StoreKey.uint64(merged.lowerBound),
            in: databases.meta)
    }

    /// Deletes every key of `database` that starts with `prefix`.
    private func deleteKeys(withPrefix prefix: [UInt8], in database: Database) throws {
        var keys: [[UInt8]] = []
        try transaction.forEach(in: database, from: prefix) { key, _ in
            guard key.starts(with: prefix) else { return .stop }
            keys.append(Array(key))
            return .next
        }
        for key in keys { _ = try writeTransaction.delete(key, in: database) }
    }

    /// Forgets the erasure notices numbered up to `number` (the fleet server has them).
    package func removeErasureNotices(through number: UInt64) throws {
        for notice in try erasureNotices() where notice.number <= number {
            _ = try writeTransaction.delete(ErasureNoticeCodec.key(of: notice.number), in: databases.meta)
        }
    }
}
