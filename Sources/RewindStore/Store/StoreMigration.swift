import RewindLMDB
import RewindValues

/// Brings a store written in an older format up to ``StoreLayout/formatVersion``, inside the
/// write transaction that opens it (all or nothing; another process opening the store meanwhile
/// finds it migrated).
enum StoreMigration {
    /// Migrates the store from `format` to the current format; returns the current format.
    ///
    /// - Throws: ``StoreError/corruptedEntry(database:key:reason:)`` when the old index and the
    ///   sessions disagree (nothing is changed then), `LMDBError`.
    static func migrate(_ txn: WriteTransaction, databases: StoreDatabases, from format: UInt32) throws -> UInt32 {
        guard (1...4).contains(format) else {
            throw StoreError.unsupportedFormat(found: format, supported: StoreLayout.formatVersion)
        }
        if format == 1 { try blockIndex(txn, databases: databases) }
        if format <= 2 {
            // Format 2 → 3: every entry is current, so the mark is the log's end.
            let end = try StoreReadTransaction(transaction: txn, databases: databases).headSequence()
            try txn.put(StoreKey.uint64(end), forKey: StoreLayout.sessionsThroughKey, in: databases.meta)
        }
        // Format 3 → 4: nothing to change (a format 3 log has no erased ranges).
        // Format 4 → 5: nothing to change (a format 4 store has no trimmed session).
        let current = StoreLayout.formatVersion
        try txn.put(
            withUnsafeBytes(of: current.bigEndian) { Array($0) }, forKey: StoreLayout.formatVersionKey,
            in: databases.meta)
        return current
    }

    /// Format 1 → 2: the session index's one entry per version becomes one entry per
    /// ``StoreLayout/indexBlockSize`` versions, the versions after the last full block move to the
    /// session's `sessions` entry.
    private static func blockIndex(_ txn: WriteTransaction, databases: StoreDatabases) throws {
        // The old index, by session (its keys sort by session, then version).
        var sequencesBySession: [String: [UInt64]] = [:]
        try txn.forEach(in: databases.sessionIndex) { key, value in
            guard let (session, version) = StoreKey.splitCompound(key), let sequence = StoreKey.uint64(from: value)
            else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.sessionIndex, key: "of \(key.count) bytes",
                    reason: "not a format 1 entry (session, version → sequence)")
            }
            var sequences = sequencesBySession.removeValue(forKey: session) ?? []
            guard version == UInt64(sequences.count) + 1 else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.sessionIndex, key: "'\(DisplayText.excerpt(session))' version \(version)",
                    reason: "version \(sequences.count + 1) was expected")
            }
            sequences.append(sequence)
            sequencesBySession[session] = sequences
            return .next
        }
        var heads: [SessionHead] = []
        try txn.forEach(in: databases.sessions) { key, value in
            let text = String(decoding: key, as: UTF8.self)
            guard let session = try? SessionID(text) else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.sessions, key: text.debugDescription,
                    reason: "the key is not a valid session id")
            }
            let info = try SessionInfoCodec.decode(
                value, session: session, storeFormat: SessionInfoCodec.formatVersion1
            ).info
            let sequences = sequencesBySession.removeValue(forKey: text) ?? []
            guard UInt64(sequences.count) == info.headVersion, sequences.last == info.headSequence else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.sessions, key: "'\(session.excerpt)'",
                    reason: "head version \(info.headVersion) but \(sequences.count) versions in the session index")
            }
            heads.append(SessionHead(info: info, recent: sequences))
            return .next
        }
        if let orphan = sequencesBySession.keys.sorted().first {
            throw StoreError.corruptedEntry(
                database: StoreLayout.sessionIndex, key: "'\(orphan)'",
                reason: "indexed versions of a session that has no sessions entry")
        }

        try txn.removeAll(in: databases.sessionIndex)
        let blockSize = StoreLayout.indexBlockSize
        var buffer: [UInt8] = []
        for head in heads {
            let sequences = head.recent
            let full = sequences.count / blockSize * blockSize
            for blockStart in stride(from: 0, to: full, by: blockSize) {
                let key = StoreKey.compound(head.info.session.rawValue, UInt64(blockStart) + 1)
                try StoreLayout.withIndexBlock(sequences[blockStart..<(blockStart + blockSize)]) { block in
                    try key.withUnsafeBytes { key in try txn.put(block, forKey: key, in: databases.sessionIndex) }
                }
            }
            buffer.removeAll(keepingCapacity: true)
            SessionInfoCodec.encode(SessionHead(info: head.info, recent: Array(sequences[full...])), into: &buffer)
            try txn.put(buffer, forKey: Array(head.info.session.rawValue.utf8), in: databases.sessions)
        }
    }
}
