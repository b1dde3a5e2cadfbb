import RewindStore

/// What one run of ``Engine/applyRetention(now:)`` did.
public struct RetentionReport: Sendable, Hashable, Codable {
    /// The sessions erased, oldest first.
    public var sessions: [SessionID] = []
    /// The records they held.
    public var records: Int = 0
    /// The write transactions it took (one per pass).
    public var passes: Int = 0
    /// Sessions the policy would have dropped but that a fleet server has not acknowledged yet.
    public var keptUnacknowledged: Int = 0
}

/// Retention: the store forgets whole sessions as ``EngineConfiguration/retention`` says.
extension Engine {
    /// Enforces ``EngineConfiguration/retention`` as of `now`: erases (as ``erase(_:)`` does, with
    /// reason ``ErasureReason/retention``) the sessions it drops, oldest last record first, in
    /// passes of at most ``RetentionPolicy/sessionsPerPass`` sessions, each one write transaction,
    /// until nothing more is to go. Sessions are picked in a read transaction and each pass checks
    /// them again in its own (a session that received a record meanwhile is kept if it no longer
    /// qualifies by age). Sends go on between passes; call it off the main thread (at launch, or
    /// from a background task).
    ///
    /// - Throws: the store's errors; the passes committed before an error stay done.
    @discardableResult
    public func applyRetention(now: Timestamp = .now()) throws -> RetentionReport {
        let policy = configuration.retention
        var report = RetentionReport()
        guard policy.limitsAnything else { return report }
        while true {
            let (candidates, kept) = try store.read { transaction in
                try Self.retentionCandidates(policy, now: now, in: transaction)
            }
            report.keptUnacknowledged = kept
            let batch = Array(candidates.prefix(max(1, policy.sessionsPerPass)))
            guard !batch.isEmpty else { return report }
            let pass = try erase(reason: .retention) { transaction in
                try batch.filter { id in
                    guard let info = try transaction.sessionInfo(for: id) else { return false }
                    // A session that moved since it was picked is kept unless the count or the
                    // size still asks for it (they count the sessions as they are).
                    guard let maximumAge = policy.maximumAge else { return true }
                    return Self.isOlder(info, than: maximumAge, now: now) || policy.maximumSessions != nil
                        || policy.maximumLiveBytes != nil
                }
            }
            report.passes += 1
            report.records += pass.records
            report.sessions += batch.filter(pass.sessions.contains)
            if pass.sessions.isEmpty { return report }
        }
    }

    /// The sessions `policy` drops now, oldest last record first, and how many it keeps only
    /// because a fleet server has not acknowledged them.
    static func retentionCandidates(
        _ policy: RetentionPolicy, now: Timestamp, in transaction: StoreReadTransaction
    ) throws -> (drop: [SessionID], keptUnacknowledged: Int) {
        var sessions = try transaction.sessions()
        sessions.sort { ($0.updated, $0.session) < ($1.updated, $1.session) }
        // The first sequence no destination that must acknowledge a session has acknowledged.
        var acknowledgedBefore = UInt64.max
        var checkpoints = policy.keepsUnacknowledgedUploads ? try transaction.uploadCheckpoints() : [:]
        for destination in policy.requiredUploadDestinations where checkpoints[destination] == nil {
            checkpoints[destination] = try transaction.uploadCheckpoint(for: destination) ?? 1
        }
        for (_, next) in checkpoints { acknowledgedBefore = min(acknowledgedBefore, next) }

        var drop: [SessionID] = []
        var dropped = Set<SessionID>()
        var kept = 0
        func consider(_ info: SessionInfo) {
            guard !dropped.contains(info.session) else { return }
            guard info.headSequence < acknowledgedBefore else {
                kept += 1
                return
            }
            drop.append(info.session)
            dropped.insert(info.session)
        }
        if let maximumAge = policy.maximumAge {
            for info in sessions where isOlder(info, than: maximumAge, now: now) { consider(info) }
        }
        if let maximumSessions = policy.maximumSessions, sessions.count > maximumSessions {
            for info in sessions.prefix(sessions.count - maximumSessions) { consider(info) }
        }
        if let maximumLiveBytes = policy.maximumLiveBytes {
            let live = try transaction.liveBytes()
            if live > maximumLiveBytes {
                // The records' share of the live bytes estimates what dropping a session frees.
                let records = max(1, sessions.reduce(0) { $0 + Int($1.recordCount) })
                var excess = live - maximumLiveBytes
                for info in sessions where excess > 0 {
                    let before = drop.count
                    consider(info)
                    if drop.count > before { excess -= max(1, live * Int(info.recordCount) / records) }
                }
            }
        }
        let order = Dictionary(uniqueKeysWithValues: sessions.enumerated().map { ($1.session, $0) })
        drop.sort { order[$0, default: 0] < order[$1, default: 0] }
        return (drop, kept)
    }

    /// Whether `info`'s last record is older than `age` at `now`.
    static func isOlder(_ info: SessionInfo, than age: Duration, now: Timestamp) -> Bool {
        let microseconds = age.components.seconds * 1_000_000 + age.components.attoseconds / 1_000_000_000_000
        return info.updated.microsecondsSince1970 < now.microsecondsSince1970 - microseconds
    }
}
