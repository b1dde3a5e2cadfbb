import RewindStore

/// Erasing sessions: account deletion, `rewind erase`, retention.
extension Engine {
    /// Erases `session`: its records, snapshots, index entries and its contributions to every
    /// registered projection go in one write transaction; its id is remembered by a tombstone (a
    /// keyed hash, not the id), so it cannot be resumed, replayed, exported, forked or started
    /// again (``EngineError/sessionErased(_:_:)``); a notice waits for the fleet server. Erasing a
    /// session that was already erased does nothing and reports no session.
    ///
    /// The erased bytes leave the data file when the store is compacted. Sessions of this engine
    /// that are open on the erased id fail their next send with
    /// ``StoreError/sessionErased(session:erasure:)``. This call commits (and syncs) one write
    /// transaction on the calling thread: call it off the main thread.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)`` when the store never held `session`, the
    ///   store's errors (nothing is erased then).
    @discardableResult
    public func erase(_ session: SessionID) throws -> ErasureReport {
        try erase(reason: .requested) { transaction in
            if try transaction.sessionInfo(for: session) != nil { return [session] }
            if try transaction.erasure(of: session) != nil { return [] }
            throw EngineError.unknownSession(session)
        }
    }

    /// Erases every session `predicate` selects (as ``erase(_:)`` erases one), all in one write
    /// transaction: "everything of user 42".
    ///
    /// - Throws: the store's errors (nothing is erased then).
    @discardableResult
    public func erase(where predicate: SessionPredicate) throws -> ErasureReport {
        try erase(reason: .requested) { transaction in
            try Self.sessions(matching: predicate, in: transaction, coder: store.coder)
        }
    }

    /// The sessions `predicate` selects now, in id order: what ``erase(where:)`` would erase.
    public func sessions(matching predicate: SessionPredicate) throws -> [SessionID] {
        try store.read { try Self.sessions(matching: predicate, in: $0, coder: store.coder) }
    }

    /// Erases the sessions `select` picks inside the write transaction that erases them.
    package func erase(
        reason: ErasureReason, select: (StoreWriteTransaction) throws -> [SessionID]
    ) throws -> ErasureReport {
        try ensureOpen()
        let time = Timestamp.now()
        let (erasure, refolded) = try writableStore.write { transaction in
            let erasure = try transaction.eraseSessions(try select(transaction), reason: reason, at: time)
            return (erasure, try projections.removeContributions(of: erasure, in: transaction))
        }
        if erasure.notice != nil { notifier.noteErasure() }  // an uploader has a notice to send
        return ErasureReport(
            sessions: erasure.sessions.sorted(), records: erasure.records.count, erasedAt: time,
            notice: erasure.notice?.number, refoldedProjections: refolded)
    }

    /// The sessions of `transaction` that `predicate` selects, in id order.
    static func sessions(
        matching predicate: SessionPredicate, in transaction: StoreReadTransaction, coder: any PayloadCoder
    ) throws -> [SessionID] {
        var selected: [SessionID] = []
        try transaction.forEachSession { info in
            var context = JSONValue.null
            if predicate.needsContext, info.baseVersion != nil {
                // A trimmed session's start record is gone: its context at the base stands for it.
                context =
                    (try? SessionSnapshot.latest(of: info.session, atOrBefore: info.firstVersion, in: transaction))?
                    .state.context ?? .null
            } else if predicate.needsContext,
                let first = try transaction.records(of: info.session, from: 1, limit: 1).first,
                first.event == StepRecording.startEvent
            {
                context = (try? coder.decode(JSONValue.self, from: first.payload)) ?? .null
            }
            if predicate.test(SessionPredicate.Candidate(info: info, context: context)) {
                selected.append(info.session)
            }
            return .next
        }
        return selected
    }
}
