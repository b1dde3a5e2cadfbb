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
        try sessionHead(for: session)?.info
    }

    /// The session's head (its info and the sequences of its latest versions): its `sessions`
    /// entry advanced by its records in the session tail, or `nil` when it has no records.
    final func sessionHead(for session: SessionID) throws -> SessionHead? {
        if let head = try tail().heads[session] { return head }
        return try storedEntry(for: session)
    }

    /// Whether the session has a `sessions` entry (looked up, not decoded).
    private func hasStoredEntry(_ session: SessionID) throws -> Bool {
        var key = session.rawValue
        return try key.withUTF8 { keyBytes in
            try transaction.withValue(forKey: UnsafeRawBufferPointer(keyBytes), in: databases.sessions) { _ in true } ?? false
        }
    }

    /// The session's `sessions` entry as stored (it may lag the log: see ``SessionTail``).
    final func storedEntry(for session: SessionID) throws -> SessionHead? {
        var key = session.rawValue
        return try key.withUTF8 { keyBytes in
            try transaction.withValue(forKey: UnsafeRawBufferPointer(keyBytes), in: databases.sessions) { bytes in
                try SessionInfoCodec.decode(bytes, session: session)
            }
        }
    }

    /// This snapshot's session tail: the heads of the sessions with records after the
    /// `sessions-through` mark, read once per transaction (only the records the process's
    /// newest tail does not cover).
    final func tail() throws -> SessionTail {
        if let loadedTail { return loadedTail }
        try loadTail()
        return loadedTail ?? SessionTail(mark: 0)  // loadTail always sets it
    }

    /// Whether this transaction writes: it then takes the process's tail out of the cache (and
    /// gives its own back once committed) instead of sharing it.
    var isWriting: Bool { false }

    /// Reads this snapshot's session tail into ``loadedTail`` unless it is there already (without
    /// copying it, so a write transaction can then change it in place). Returns the tail's end:
    /// the last sequence of the log as this transaction sees it.
    @discardableResult
    final func loadTail() throws -> UInt64 {
        if let end = loadedTail?.end { return end }
        let mark = try sessionsThrough()
        let end = try headSequence()
        // The mark only ever moves to the log's end: one beyond it would hide the records after
        // the real mark and place the next append past a gap.
        guard mark <= end else {
            throw StoreError.corruptedEntry(
                database: StoreLayout.meta, key: "'sessions-through'",
                reason: "it is sequence \(mark), beyond the log's end at sequence \(end)")
        }
        var tail = tailCache?.tail(mark: mark, end: end, take: isWriting) ?? SessionTail(mark: mark)
        if tail.end < end {
            try tail.read(from: self)
            if !isWriting { tailCache?.offer(tail) }
        }
        loadedTail = tail
        return tail.end
    }

    /// The `sessions-through` mark in `meta`: every `sessions` entry accounts for the log through it.
    final func sessionsThrough() throws -> UInt64 {
        let key = StoreLayout.sessionsThroughKey
        return try key.withUnsafeBytes { keyBytes in
            let stored = try transaction.withValue(forKey: keyBytes, in: databases.meta) { StoreKey.uint64(from: $0) }
            guard let stored, let mark = stored else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.meta, key: "'sessions-through'", reason: "missing or not 8 bytes")
            }
            return mark
        }
    }

    /// Calls `body` with every session, ordered by id, until `body` returns ``IterationControl/stop``.
    public func forEachSession(_ body: (SessionInfo) throws -> IterationControl) throws {
        let heads = try tail().heads
        // Sessions whose first records are in the tail have no entry yet: merged in by id.
        var fresh: [SessionID] = []
        for (key, _) in heads where try !hasStoredEntry(key) {
            fresh.append(key)
        }
        fresh.sort()
        var nextFresh = 0
        var stopped = false
        func emitFresh(before key: UnsafeRawBufferPointer?) throws {
            while !stopped, nextFresh < fresh.count, key.map({ fresh[nextFresh].rawValue.utf8.lexicographicallyPrecedes($0) }) ?? true {
                let id = fresh[nextFresh]
                nextFresh += 1
                if let head = heads[id], try body(head.info) == .stop { stopped = true }
            }
        }
        try transaction.forEach(in: databases.sessions) { key, value in
            try emitFresh(before: key)
            if stopped { return .stop }
            let text = String(decoding: key, as: UTF8.self)
            let control: IterationControl
            if let head = heads[SessionID(checked: text)] {
                control = try body(head.info)
            } else {
                guard let session = try? SessionID(text) else {
                    throw StoreError.corruptedEntry(database: StoreLayout.sessions, key: text.debugDescription,
                                                    reason: "the key is not a valid session id")
                }
                control = try body(try SessionInfoCodec.decode(value, session: session).info)
            }
            // A stop here also ends the new sessions still to come after this one.
            if control == .stop { stopped = true }
            return control
        }
        if !stopped { try emitFresh(before: nil) }
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
    ///
    /// - Throws: ``StoreError/corruptedEntry(database:key:reason:)`` when an index entry points at
    ///   no record or at a record of another session or version, ``StoreError/corruptedRecord(sequence:reason:)``.
    public func forEachRecord(
        of session: SessionID, from start: UInt64? = nil, direction: IterationDirection = .forward,
        _ body: (TransitionRecord) throws -> IterationControl
    ) throws {
        try forEachSequence(of: session, from: start, direction: direction) { version, sequence in
            guard let record = try record(at: sequence) else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.sessionIndex, key: "'\(session)' version \(version)",
                    reason: "it points at sequence \(sequence), which is not in the log")
            }
            // The index has no checksum of its own: a damaged one must not lend another record.
            guard record.version == version, record.session == session else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.sessionIndex, key: "'\(session)' version \(version)",
                    reason: "it points at sequence \(sequence), which holds '\(record.session)' version \(record.version)")
            }
            return try body(record)
        }
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
        switch direction {
        case .forward:
            let first = max(start ?? 1, 1)
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
            guard last >= 1 else { return }
            for (offset, sequence) in head.recent.enumerated().reversed() {
                let version = firstRecent + UInt64(offset)
                if version > last { continue }
                if try body(version, sequence) == .stop { return }
            }
            guard firstRecent > 1 else { return }
            let newest = min(last, firstRecent - 1)
            var lowest = (newest - 1) / blockSize * blockSize + 1 + blockSize
            var stopped = false
            try forEachIndexBlock(of: session, containing: newest, direction: .backward) { blockStart, sequences in
                for (offset, sequence) in sequences.enumerated().reversed() {
                    let version = blockStart + UInt64(offset)
                    if version > last { continue }
                    if try body(version, sequence) == .stop {
                        stopped = true
                        return .stop
                    }
                }
                lowest = blockStart
                return .next
            }
            if !stopped && lowest != 1 { throw Self.missingBlock(of: session, at: lowest - blockSize) }
        }
    }

    private static func missingBlock(of session: SessionID, at version: UInt64) -> StoreError {
        StoreError.corruptedEntry(
            database: StoreLayout.sessionIndex, key: "'\(session)' version \(version)",
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
                    database: StoreLayout.sessionIndex, key: "'\(session)' version \(blockStart)",
                    reason: "the block of version \(expected) was expected here")
            }
            guard value.count == StoreLayout.indexBlockSize * 8 else {
                throw StoreError.corruptedEntry(
                    database: StoreLayout.sessionIndex, key: "'\(session)' version \(blockStart)",
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
