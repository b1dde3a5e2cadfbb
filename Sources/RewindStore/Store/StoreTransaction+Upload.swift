import RewindLMDB

/// What an uploader (`RewindSync`) reads and keeps in the store: the log's records in their stored
/// encoding, and per destination the server's acknowledged position, in `meta`.
extension StoreReadTransaction {
    /// Calls `body` with each record of the log from global sequence `start` on, in order: a
    /// checked view (as ``forEachRecordView(from:_:)`` gives) and the record's whole encoding as
    /// stored (checksum included), both borrowed from LMDB's map and valid only during the call.
    ///
    /// - Throws: ``StoreError/corruptedRecord(sequence:reason:)`` for a record that does not check.
    package func forEachEncodedRecord(
        from start: UInt64, _ body: (RecordView, UnsafeRawBufferPointer) throws -> IterationControl
    ) throws {
        try transaction.forEach(in: databases.log, from: StoreKey.uint64(start)) { key, value in
            let sequence = try Self.sequence(ofLogKey: key)
            return try body(try RecordView(value, sequence: sequence), value)
        }
    }

    /// The next global sequence the server named by `destination` acknowledged holding this store's
    /// records up to (exclusive), as an uploader last stored it; `nil` before the first
    /// acknowledgement.
    ///
    /// - Throws: ``StoreError/corruptedEntry(database:key:reason:)`` when the entry is not 8 bytes.
    package func uploadCheckpoint(for destination: String) throws -> UInt64? {
        let key = Self.uploadCheckpointKey(destination)
        guard let bytes = try transaction.get(key, in: databases.meta) else { return nil }
        guard let next = StoreKey.uint64(from: bytes) else {
            throw StoreError.corruptedEntry(
                database: StoreLayout.meta, key: "'upload-checkpoint' of \(destination)",
                reason: "\(bytes.count) bytes instead of 8")
        }
        return next
    }

    /// Every destination's upload checkpoint (see ``uploadCheckpoint(for:)``), by destination.
    package func uploadCheckpoints() throws -> [String: UInt64] {
        var checkpoints: [String: UInt64] = [:]
        let prefix = StoreLayout.uploadCheckpointPrefix
        var destinations: [String] = []
        try transaction.forEach(in: databases.meta, from: prefix) { key, _ in
            guard key.starts(with: prefix) else { return .stop }
            destinations.append(String(decoding: key[prefix.count...], as: UTF8.self))
            return .next
        }
        for destination in destinations { checkpoints[destination] = try uploadCheckpoint(for: destination) }
        return checkpoints
    }

    /// The `meta` key of `destination`'s upload checkpoint: `upload-checkpoint`, NUL, the
    /// destination's UTF-8.
    static func uploadCheckpointKey(_ destination: String) -> [UInt8] {
        StoreLayout.uploadCheckpointPrefix + Array(destination.utf8)
    }

    /// The number of the last erasure notice the server named by `destination` acknowledged, 0
    /// when it acknowledged none.
    ///
    /// - Throws: ``StoreError/corruptedEntry(database:key:reason:)`` when the entry is not 8 bytes.
    package func erasureCheckpoint(for destination: String) throws -> UInt64 {
        guard let bytes = try transaction.get(Self.erasureCheckpointKey(destination), in: databases.meta) else {
            return 0
        }
        guard let number = StoreKey.uint64(from: bytes) else {
            throw StoreError.corruptedEntry(
                database: StoreLayout.meta, key: "'erasure-checkpoint' of \(destination)",
                reason: "\(bytes.count) bytes instead of 8")
        }
        return number
    }

    /// The `meta` key of `destination`'s erasure checkpoint: `erasure-checkpoint`, NUL, the
    /// destination's UTF-8.
    static func erasureCheckpointKey(_ destination: String) -> [UInt8] {
        StoreLayout.erasureCheckpointPrefix + Array(destination.utf8)
    }
}

extension StoreWriteTransaction {
    /// Stores `next` as `destination`'s upload checkpoint (see
    /// ``StoreReadTransaction/uploadCheckpoint(for:)``), committed with this transaction.
    package func setUploadCheckpoint(_ next: UInt64, for destination: String) throws {
        try writeTransaction.put(
            StoreKey.uint64(next), forKey: Self.uploadCheckpointKey(destination), in: databases.meta)
    }

    /// Stores `number` as the last erasure notice `destination` acknowledged, and forgets the
    /// notices every destination the store uploads to has acknowledged.
    package func setErasureCheckpoint(_ number: UInt64, for destination: String) throws {
        try writeTransaction.put(
            StoreKey.uint64(number), forKey: Self.erasureCheckpointKey(destination), in: databases.meta)
        var acknowledgedByAll = number
        let prefix = StoreLayout.uploadCheckpointPrefix
        try transaction.forEach(in: databases.meta, from: prefix) { key, _ in
            guard key.starts(with: prefix) else { return .stop }
            let other = String(decoding: key[prefix.count...], as: UTF8.self)
            acknowledgedByAll = min(acknowledgedByAll, try erasureCheckpoint(for: other))
            return .next
        }
        try removeErasureNotices(through: acknowledgedByAll)
    }
}
