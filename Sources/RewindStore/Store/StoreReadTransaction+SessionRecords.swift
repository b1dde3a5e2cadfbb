import RewindLMDB

/// One session's records, through the `session-index` blocks and its entry's recent versions.
extension StoreReadTransaction {
    /// Calls `body` with the records of `session` from version `start` on, forward (ascending
    /// versions) or backward (descending), until the session's records run out or `body` returns
    /// ``IterationControl/stop``. Only this session's index entries are visited. `start` defaults
    /// to the first version forward and to the head backward. A trimmed session's records begin at
    /// its base version (``SessionInfo/baseVersion``): none below it is visited.
    ///
    /// - Throws: ``StoreError/corruptedEntry(database:key:reason:)`` when an index entry points at
    ///   no record or at a record of another session or version, ``StoreError/corruptedRecord(sequence:reason:)``.
    public func forEachRecord(
        of session: SessionID, from start: UInt64? = nil, direction: IterationDirection = .forward,
        _ body: (TransitionRecord) throws -> IterationControl
    ) throws {
        // The records repeat their machine, definition, states and events: one memory of them.
        var recent = RecentStrings()
        try forEachRecordView(of: session, from: start, direction: direction) { view in
            try body(view.record(reusing: &recent))
        }
    }

    /// Calls `body` with a checked, borrowed view of each record of `session`, as
    /// ``forEachRecord(of:from:direction:_:)`` visits them and with the same checks; nothing is
    /// copied out of LMDB's map unless `body` does, and a view is valid only during its call (a
    /// session's export writes its lines from the views: Benchmarks/HISTORY.md).
    ///
    /// - Throws: the errors of ``forEachRecord(of:from:direction:_:)``.
    package func forEachRecordView(
        of session: SessionID, from start: UInt64? = nil, direction: IterationDirection = .forward,
        _ body: (RecordView) throws -> IterationControl
    ) throws {
        // One cursor for the whole walk: a session's records lie close together in the log, and
        // LMDB finds a key on the cursor's leaf page without descending the tree again.
        try transaction.withCursor(on: databases.log) { log in
            try forEachSequence(of: session, from: start, direction: direction) { version, sequence in
                try forRecord(of: session, version: version, at: sequence, in: log, body)
            }
        }
    }

    /// Calls `body` with the view of the record at `sequence`, found with `log`, after checking
    /// that it is `session`'s record of `version`, as the index entry that named it says.
    private func forRecord(
        of session: SessionID, version: UInt64, at sequence: UInt64, in log: Cursor,
        _ body: (RecordView) throws -> IterationControl
    ) throws -> IterationControl {
        let found = try withUnsafeBytes(of: sequence.bigEndian) { key in try log.seek(exactly: key) }
        let control =
            try found
            ? log.withCurrent { _, bytes -> IterationControl in
                let view = try RecordView(bytes, sequence: sequence)
                // The index has no checksum of its own: a damaged one must not lend another record.
                guard view.version == version, view.sessionBytes.equalsUTF8(of: session.rawValue) else {
                    throw StoreError.corruptedEntry(
                        database: StoreLayout.sessionIndex, key: "'\(session.excerpt)' version \(version)",
                        reason:
                            "it points at sequence \(sequence), which holds '\(view.session)' version \(view.version)")
                }
                return try body(view)
            } : nil
        guard let control else {
            throw StoreError.corruptedEntry(
                database: StoreLayout.sessionIndex, key: "'\(session.excerpt)' version \(version)",
                reason: "it points at sequence \(sequence), which is not in the log")
        }
        return control
    }

    /// Calls `body` with the version and global sequence of each record of `session` from version
    /// `start` on, in `direction` (see ``forEachRecord(of:from:direction:_:)``): the full blocks of
    /// the `session-index`, then the recent versions of the session's `sessions` entry (backward:
    /// the other way round).
    final func forEachSequence(
        of session: SessionID, from start: UInt64?, direction: IterationDirection,
        _ body: (_ version: UInt64, _ sequence: UInt64) throws -> IterationControl
    ) throws {
        guard let head = try sessionHead(for: session) else { return }
        let headVersion = head.info.headVersion
        let firstRecent = head.firstRecentVersion
        let blockSize = UInt64(StoreLayout.indexBlockSize)
        // A trimmed session's records begin at its base; the index block holding the base may
        // still name sequences of trimmed versions below it, which are never visited.
        let base = head.info.firstVersion
        let baseBlock = (base - 1) / blockSize * blockSize + 1
        switch direction {
        case .forward:
            let first = max(start ?? base, base)
            guard first <= headVersion else { return }
            if first < firstRecent {
                var stopped = false
                var next = (first - 1) / blockSize * blockSize + 1
                try forEachIndexBlock(of: session, containing: first, direction: .forward) { blockStart, sequences in
                    for (offset, sequence) in sequences.enumerated() {
                        let version = blockStart + UInt64(offset)
                        if version < first { continue }
                        if try body(version, sequence) == .stop {
                            stopped = true
                            return .stop
                        }
                    }
                    next = blockStart + blockSize
                    return next < firstRecent ? .next : .stop
                }
                if stopped { return }
                guard next == firstRecent else { throw Self.missingBlock(of: session, at: next) }
            }
            for (offset, sequence) in head.recent.enumerated() {
                let version = firstRecent + UInt64(offset)
                if version < first { continue }
                if try body(version, sequence) == .stop { return }
            }
        case .backward:
            let last = min(start ?? headVersion, headVersion)
            guard last >= base else { return }
            for (offset, sequence) in head.recent.enumerated().reversed() {
                let version = firstRecent + UInt64(offset)
                if version > last { continue }
                if version < base { return }
                if try body(version, sequence) == .stop { return }
            }
            guard firstRecent > base else { return }
            let newest = min(last, firstRecent - 1)
            var lowest = (newest - 1) / blockSize * blockSize + 1 + blockSize
            var stopped = false
            try forEachIndexBlock(of: session, containing: newest, direction: .backward) { blockStart, sequences in
                for (offset, sequence) in sequences.enumerated().reversed() {
                    let version = blockStart + UInt64(offset)
                    if version > last { continue }
                    if version < base {
                        stopped = true
                        return .stop
                    }
                    if try body(version, sequence) == .stop {
                        stopped = true
                        return .stop
                    }
                }
                lowest = blockStart
                return .next
            }
            if !stopped && lowest != baseBlock { throw Self.missingBlock(of: session, at: lowest - blockSize) }
        }
    }

    private static func missingBlock(of session: SessionID, at version: UInt64) -> StoreError {
        StoreError.corruptedEntry(
            database: StoreLayout.sessionIndex, key: "'\(session.excerpt)' version \(version)",
            reason: "the block of this version is missing")
    }

    /// Visits the full `session-index` blocks of `session` from the one holding `version` on, in
    /// `direction`, each as its first version and its sequences, checking that they follow on from
    /// each other.
    private final func forEachIndexBlock(
        of session: SessionID, containing version: UInt64, direction: IterationDirection,
        _ body: (_ blockStart: UInt64, _ sequences: [UInt64]) throws -> IterationControl
    ) throws {
        let blockSize = UInt64(StoreLayout.indexBlockSize)
        let prefix = StoreKey.compoundPrefix(session.rawValue)
        var expected = (version - 1) / blockSize * blockSize + 1
        var sequences: [UInt64] = []
        sequences.reserveCapacity(StoreLayout.indexBlockSize)
        try transaction.forEach(
            in: databases.sessionIndex, from: StoreKey.compound(session.rawValue, expected), direction: direction
        ) { key, value in
            guard key.count == prefix.count + 8, key.prefix(prefix.count).elementsEqual(prefix) else { return .stop }
            let blockStart = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: prefix.count, as: UInt64.self))
            guard blockStart == expected else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.sessionIndex, key: "'\(session.excerpt)' version \(blockStart)",
                    reason: "the block of version \(expected) was expected here")
            }
            guard value.count == StoreLayout.indexBlockSize * 8 else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.sessionIndex, key: "'\(session.excerpt)' version \(blockStart)",
                    reason: "the value is \(value.count) bytes, not \(StoreLayout.indexBlockSize) 8-byte sequences")
            }
            sequences.removeAll(keepingCapacity: true)
            for offset in stride(from: 0, to: value.count, by: 8) {
                sequences.append(UInt64(bigEndian: value.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            }
            let control = try body(blockStart, sequences)
            if control == .stop { return .stop }
            if direction == .forward {
                expected = blockStart + blockSize
            } else {
                guard blockStart > 1 else { return .stop }
                expected = blockStart - blockSize
            }
            return .next
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
}
