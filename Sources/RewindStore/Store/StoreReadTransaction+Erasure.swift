import RewindLMDB
import RewindValues

/// What a read transaction knows of erasures: the log's erased ranges, the tombstones of erased
/// sessions and the notices waiting for the fleet server (see ``StoreLayout/erasedRangePrefix``).
extension StoreReadTransaction {
    /// The erased ranges of the log that end at or after `start`, ascending (a range that begins
    /// before `start` and reaches it is included whole).
    public func erasedRanges(from start: UInt64 = 1) throws -> [ClosedRange<UInt64>] {
        var ranges: [ClosedRange<UInt64>] = []
        try forEachErasedRange(from: start) { range in
            ranges.append(range)
            return .next
        }
        return ranges
    }

    /// Calls `body` with each erased range that ends at or after `start`, ascending.
    package func forEachErasedRange(
        from start: UInt64 = 1, _ body: (ClosedRange<UInt64>) throws -> IterationControl
    ) throws {
        let prefix = StoreLayout.erasedRangePrefix
        // The range holding `start` begins at or before it: start from the last range at or before.
        var first = prefix + StoreKey.uint64(start)
        try transaction.forEach(in: databases.meta, from: first, direction: .backward) { key, value in
            if key.starts(with: prefix), let range = try Self.erasedRange(key: key, value: value), range.contains(start)
            {
                first = prefix + StoreKey.uint64(range.lowerBound)
            }
            return .stop
        }
        try transaction.forEach(in: databases.meta, from: first) { key, value in
            guard key.starts(with: prefix), let range = try Self.erasedRange(key: key, value: value) else {
                return .stop
            }
            return try body(range)
        }
    }

    /// The last erased sequence, 0 when nothing was erased.
    final func lastErasedSequence() throws -> UInt64 {
        let prefix = StoreLayout.erasedRangePrefix
        var last: UInt64 = 0
        try transaction.forEach(in: databases.meta, from: prefix + StoreKey.uint64(.max), direction: .backward) {
            key, value in
            if key.starts(with: prefix), let range = try Self.erasedRange(key: key, value: value) {
                last = range.upperBound
            }
            return .stop
        }
        return last
    }

    /// The range of an `erased` entry, checked.
    static func erasedRange(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> ClosedRange<UInt64>? {
        let prefixCount = StoreLayout.erasedRangePrefix.count
        guard key.count == prefixCount + 8, value.count == 8,
            let first = StoreKey.uint64(from: UnsafeRawBufferPointer(rebasing: key[prefixCount...])),
            let last = StoreKey.uint64(from: value), first >= 1, first <= last
        else {
            throw StoreError.corruptedEntry(
                database: StoreLayout.meta, key: "'erased' of \(key.count) bytes",
                reason: "an erased range is an 8-byte first sequence and an 8-byte last sequence, first ≤ last")
        }
        return first...last
    }

    /// The bytes of the pages the store's databases use now: what is live, without the free pages
    /// the data file keeps until it is compacted.
    public func liveBytes() throws -> Int {
        var databases = [self.databases.log, self.databases.sessionIndex, self.databases.sessions, self.databases.meta]
        databases += self.databases.auxiliary
        var bytes = 0
        for database in databases {
            let statistics = try transaction.statistics(of: database)
            bytes += (statistics.branchPages + statistics.leafPages + statistics.overflowPages) * statistics.pageSize
        }
        return bytes
    }

    /// Whether `session` was erased, and when and why: its tombstone, or `nil` when the store
    /// never erased a session of that id.
    /// - Throws: ``StoreError/corruptedEntry(database:key:reason:)`` when the tombstone is damaged.
    public func erasure(of session: SessionID) throws -> SessionErasure? {
        guard let secret = try storeSecret() else { return nil }  // nothing was ever erased
        let key = Self.tombstoneKey(of: session, secret: secret)
        return try transaction.withValue(forKey: key, in: databases.meta) { value in
            guard value.count == 9, let reason = ErasureReason(rawValue: value[8]) else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.meta, key: "a tombstone",
                    reason: "\(value.count) bytes; a tombstone is 8 bytes of time and 1 of reason")
            }
            let erasedAt = Timestamp(microsecondsSince1970: value.loadUnaligned(as: Int64.self).littleEndian)
            return SessionErasure(erasedAt: erasedAt, reason: reason)
        }
    }

    /// The `meta` key of `session`'s tombstone under `secret`.
    static func tombstoneKey(of session: SessionID, secret: [UInt8]) -> [UInt8] {
        StoreLayout.tombstonePrefix + HMACSHA256.authenticationCode(of: session.rawValue.utf8, key: secret)
    }

    /// The erasure notices numbered after `number`, in order: what the fleet server has not
    /// acknowledged yet when `number` is the last it acknowledged.
    public func erasureNotices(after number: UInt64 = 0) throws -> [ErasureNotice] {
        let prefix = StoreLayout.erasureNoticePrefix
        var notices: [ErasureNotice] = []
        try transaction.forEach(in: databases.meta, from: prefix + StoreKey.uint64(number &+ 1)) { key, value in
            guard key.starts(with: prefix) else { return .stop }
            notices.append(try ErasureNoticeCodec.decode(key: key, value: value))
            return .next
        }
        return notices.filter { $0.number > number }
    }

    /// The number of the newest erasure notice ever written, 0 when there was none (also after
    /// the notices were acknowledged and removed: see ``StoreLayout/lastErasureNoticeKey``).
    final func lastErasureNoticeNumber() throws -> UInt64 {
        let prefix = StoreLayout.erasureNoticePrefix
        var number: UInt64 = 0
        if let bytes = try transaction.get(StoreLayout.lastErasureNoticeKey, in: databases.meta) {
            guard let last = StoreKey.uint64(from: bytes) else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.meta, key: "'erasure-notice-last'",
                    reason: "\(bytes.count) bytes instead of 8")
            }
            number = last
        }
        try transaction.forEach(in: databases.meta, from: prefix + StoreKey.uint64(.max), direction: .backward) {
            key, value in
            if key.starts(with: prefix) {
                number = max(number, try ErasureNoticeCodec.decode(key: key, value: value).number)
            }
            return .stop
        }
        return number
    }
}

/// The bytes of an erasure notice in `meta` (see ``StoreLayout/erasureNoticePrefix``).
enum ErasureNoticeCodec {
    static func key(of number: UInt64) -> [UInt8] {
        StoreLayout.erasureNoticePrefix + StoreKey.uint64(number)
    }

    static func encode(_ notice: ErasureNotice) -> [UInt8] {
        var bytes: [UInt8] = [notice.kind.rawValue]
        bytes.putLittleEndian(notice.erasedAt.microsecondsSince1970)
        bytes.putVarint(UInt64(notice.ranges.count))
        for range in notice.ranges {
            bytes.putVarint(range.lowerBound)
            bytes.putVarint(range.upperBound)
        }
        return bytes
    }

    static func decode(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> ErasureNotice {
        let prefixCount = StoreLayout.erasureNoticePrefix.count
        func damaged(_ reason: String) -> StoreError {
            StoreError.corruptedEntry(database: StoreLayout.meta, key: "an erasure notice", reason: reason)
        }
        guard key.count == prefixCount + 8,
            let number = StoreKey.uint64(from: UnsafeRawBufferPointer(rebasing: key[prefixCount...]))
        else {
            throw damaged("its key is not 'erasure', NUL and an 8-byte number")
        }
        var reader = ByteReader(value)
        do {
            guard let kind = ErasureNotice.Kind(rawValue: try reader.byte("its kind")) else {
                throw damaged("notice \(number) has an unknown kind")
            }
            let erasedAt = Timestamp(microsecondsSince1970: try reader.int64LittleEndian("its time"))
            let count = try reader.varint("its range count")
            guard count <= UInt64(value.count) else { throw damaged("notice \(number) claims \(count) ranges") }
            var ranges: [ClosedRange<UInt64>] = []
            for _ in 0..<count {
                let first = try reader.varint("a range's first sequence")
                let last = try reader.varint("a range's last sequence")
                guard first >= 1, first <= last else {
                    throw damaged("notice \(number) has the range \(first)…\(last)")
                }
                ranges.append(first...last)
            }
            return ErasureNotice(number: number, kind: kind, erasedAt: erasedAt, ranges: ranges)
        } catch let failure as DecodingFailure {
            throw damaged("notice \(number): \(failure.reason)")
        }
    }
}
