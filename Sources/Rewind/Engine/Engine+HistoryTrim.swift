import RewindStore

/// What ``Engine/trimHistory(of:before:)`` did.
public struct HistoryTrimReport: Sendable, Hashable, Codable {
    /// The session.
    public var session: SessionID
    /// The version its history begins at now (its base): unchanged when nothing was trimmed.
    public var firstVersion: UInt64
    /// The records removed from the log.
    public var records: Int
    /// The snapshots removed (those below the base).
    public var snapshots: Int
    /// The number of the notice that tells the fleet server (`nil` when nothing was removed).
    public var notice: UInt64?

    /// Creates a report.
    public init(session: SessionID, firstVersion: UInt64, records: Int, snapshots: Int, notice: UInt64?) {
        self.session = session
        self.firstVersion = firstVersion
        self.records = records
        self.snapshots = snapshots
        self.notice = notice
    }
}

/// Trimming a long-lived session's history: the snapshot at a version becomes its base.
extension Engine {
    /// Makes `version` the first version of `session`: writes the session's state at `version` as
    /// a stored snapshot (rebuilt as resume rebuilds it: the latest snapshot at or before it and
    /// the records after it, re-run), then removes the records of the versions before it, their
    /// index entries and the snapshots before it, records `version` as the session's base
    /// (``SessionInfo/baseVersion``), turns the removed sequences into erased ranges (so `rewind
    /// check`, uploads and catch-ups accept the gaps) and leaves a `records` erasure notice for the
    /// fleet server (which trims its copy too) — all in one write transaction, so a crash leaves the session untrimmed or
    /// trimmed, never between. The record of `version` stays.
    ///
    /// Resume continues exactly (from the base snapshot and the records after it); history,
    /// replay, diff, export, fork and verify begin at the base, and a version below it is
    /// ``ReplayError/historyTrimmed(session:requested:firstVersion:)``. Projections keep what they
    /// folded from the removed records. Trimming at the session's first version removes nothing.
    /// This call commits (and syncs) on the calling thread: call it off the main thread.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, ``EngineError/sessionErased(_:_:)``,
    ///   ``ReplayError/versionOutOfRange(session:requested:head:)`` for version 0 or a version past
    ///   the head, ``ReplayError/historyTrimmed(session:requested:firstVersion:)`` for a version
    ///   below the session's base, the replay errors when the state at `version` cannot be rebuilt
    ///   (nothing is trimmed then), the store's errors.
    @discardableResult
    public func trimHistory(of session: SessionID, before version: UInt64) throws -> HistoryTrimReport {
        try trimHistory(of: session, before: version, reason: .requested)
    }

    /// Trims as ``trimHistory(of:before:)`` does; `reason` ``ErasureReason/retention`` (a
    /// retention pass) leaves a `retention` notice, so the fleet server keeps its copy.
    func trimHistory(of session: SessionID, before version: UInt64, reason: ErasureReason) throws -> HistoryTrimReport {
        try ensureOpen()
        let time = Timestamp.now()
        let replay = logReplay()
        let trim = try writableStore.write { transaction -> StoreTrim in
            let info = try transaction.requireSessionInfo(for: session)
            guard version >= 1, version <= info.headVersion else {
                throw ReplayError.versionOutOfRange(session: session, requested: version, head: info.headVersion)
            }
            guard version >= info.firstVersion else {
                throw ReplayError.historyTrimmed(session: session, requested: version, firstVersion: info.firstVersion)
            }
            guard version > info.firstVersion else { return StoreTrim(info: info) }
            let base = try replay.snapshot(of: session, at: version, in: transaction)
            try transaction.put(
                try base.encoded(), forKey: SessionSnapshot.key(session: session, version: version), in: .snapshots)
            return try transaction.trimHistory(of: session, before: version, reason: reason, at: time)
        }
        if trim.notice != nil { notifier.noteErasure() }  // an uploader has a notice to send
        return HistoryTrimReport(
            session: session, firstVersion: trim.info.firstVersion, records: trim.records, snapshots: trim.snapshots,
            notice: trim.notice?.number)
    }
}
