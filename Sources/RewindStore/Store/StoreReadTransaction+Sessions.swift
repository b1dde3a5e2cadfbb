import RewindLMDB

/// The sessions as a read transaction sees them: each one's head (its `sessions` entry advanced
/// by the session tail), and every session in id order.
extension StoreReadTransaction {
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
            try transaction.withValue(forKey: UnsafeRawBufferPointer(keyBytes), in: databases.sessions) { _ in true }
                ?? false
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

    /// Reads this snapshot's session tail into ``loadedTail`` unless it is there already (without
    /// copying it, so a write transaction can then change it in place). Returns the tail's end:
    /// the last sequence of the log as this transaction sees it.
    @discardableResult
    final func loadTail() throws -> UInt64 {
        if let end = loadedTail?.end { return end }
        // The process's tail is this snapshot's when no commit came since it was made.
        let commit = try transaction.baseCommit()
        if let tail = tailCache?.tail(at: commit, take: isWriting) {
            loadedTail = tail
            return tail.end
        }
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
            // The newest records may have been erased: the tail accounts for their numbers too.
            tail.end = end
        }
        // Exact for this snapshot: kept with its commit (a write's is kept once it commits).
        if !isWriting { tailCache?.offer(tail, at: commit) }
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
            while !stopped, nextFresh < fresh.count,
                key.map({ fresh[nextFresh].rawValue.utf8.lexicographicallyPrecedes($0) }) ?? true
            {
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
                    throw StoreError.corruptedEntry(
                        database: StoreLayout.sessions, key: text.debugDescription,
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
        try forEachSession {
            sessions.append($0)
            return .next
        }
        return sessions
    }
}
