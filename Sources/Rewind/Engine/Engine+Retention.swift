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
    /// The sessions whose history was trimmed (``RetentionPolicy/maximumVersionsPerSession``).
    public var trimmedSessions: [SessionID] = []
    /// The records the trims removed.
    public var trimmedRecords: Int = 0
    /// Sessions longer than the policy allows whose state at the base could not be rebuilt, with why.
    public var untrimmable: [UntrimmableSession] = []
}

/// A session ``Engine/applyRetention(now:)`` could not trim, and why.
public struct UntrimmableSession: Sendable, Hashable, Codable {
    /// The session.
    public var session: SessionID
    /// Why (the replay error's description).
    public var reason: String
}

/// Retention: the store forgets whole sessions as ``EngineConfiguration/retention`` says.
extension Engine {
    /// Enforces ``EngineConfiguration/retention`` as of `now`: erases (as ``erase(_:)`` does, with
    /// reason ``ErasureReason/retention``) the sessions it drops, oldest last record first, in
    /// passes of at most ``RetentionPolicy/sessionsPerPass`` sessions, each one write transaction,
    /// until nothing more is to go; then trims the histories of sessions longer than
    /// ``RetentionPolicy/maximumVersionsPerSession`` (``trimHistory(of:before:)``, one session and at
    /// most ``RetentionPolicy/recordsPerTrimPass`` records a pass). Sessions are picked in a read transaction and each pass checks
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
        while policy.maximumAge != nil || policy.maximumSessions != nil || policy.maximumLiveBytes != nil {
            let (candidates, kept) = try store.read { transaction in
                try Self.retentionCandidates(policy, now: now, in: transaction)
            }
            report.keptUnacknowledged = kept
            let batch = Array(candidates.prefix(max(1, policy.sessionsPerPass)))
            guard !batch.isEmpty else { break }
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
            if pass.sessions.isEmpty { break }
        }
        try trimLongSessions(policy, into: &report)
        return report
    }

    /// Trims the sessions longer than ``RetentionPolicy/maximumVersionsPerSession`` versions, one
    /// session and at most ``RetentionPolicy/recordsPerTrimPass`` records per write transaction.
    private func trimLongSessions(_ policy: RetentionPolicy, into report: inout RetentionReport) throws {
        guard let maximumVersions = policy.maximumVersionsPerSession else { return }
        var skipped = Set<SessionID>()
        while let (session, base) = try store.read({
            try Self.trimCandidate(policy, maximumVersions, skipping: skipped, in: $0)
        }) {
            let trim: HistoryTrimReport
            do {
                trim = try trimHistory(of: session, before: base, reason: .retention)
            } catch let error as ReplayError {
                // Its state at the base cannot be rebuilt here (a definition that needs the app's
                // bindings, say): it keeps its history, the others are trimmed.
                report.untrimmable.append(UntrimmableSession(session: session, reason: error.description))
                skipped.insert(session)
                continue
            }
            guard trim.records > 0 else { return }  // cannot happen: the candidate has records before its base
            report.passes += 1
            report.trimmedRecords += trim.records
            if !report.trimmedSessions.contains(session) { report.trimmedSessions.append(session) }
        }
    }

    /// The first session (in id order) with more than `maximumVersions` versions whose history may
    /// be trimmed now, and the base of its next trim: at most ``RetentionPolicy/recordsPerTrimPass``
    /// versions past its first, never past a record a required fleet server has not acknowledged.
    static func trimCandidate(
        _ policy: RetentionPolicy, _ maximumVersions: Int, skipping skipped: Set<SessionID>,
        in transaction: StoreReadTransaction
    ) throws -> (SessionID, UInt64)? {
        let acknowledgedBefore = try acknowledgedBefore(policy, in: transaction)
        let keep = UInt64(max(1, maximumVersions))
        var candidate: (SessionID, UInt64)?
        try transaction.forEachSession { info in
            guard info.headVersion - info.firstVersion + 1 > keep, !skipped.contains(info.session) else { return .next }
            var base = min(info.headVersion - keep + 1, info.firstVersion + UInt64(max(1, policy.recordsPerTrimPass)))
            // Never past a record a fleet server has not acknowledged.
            try transaction.forEachRecord(of: info.session, from: info.firstVersion) { record in
                guard record.version < base else { return .stop }
                if record.sequence >= acknowledgedBefore { base = record.version }
                return record.sequence >= acknowledgedBefore ? .stop : .next
            }
            guard base > info.firstVersion else { return .next }
            candidate = (info.session, base)
            return .stop
        }
        return candidate
    }

    /// The first sequence that a destination which must acknowledge records has not acknowledged
    /// (`UInt64.max` when none must).
    static func acknowledgedBefore(_ policy: RetentionPolicy, in transaction: StoreReadTransaction) throws -> UInt64 {
        var acknowledgedBefore = UInt64.max
        var checkpoints = policy.keepsUnacknowledgedUploads ? try transaction.uploadCheckpoints() : [:]
        for destination in policy.requiredUploadDestinations where checkpoints[destination] == nil {
            checkpoints[destination] = try transaction.uploadCheckpoint(for: destination) ?? 1
        }
        for (_, next) in checkpoints { acknowledgedBefore = min(acknowledgedBefore, next) }
        return acknowledgedBefore
    }

    /// The sessions `policy` drops now, oldest last record first, and how many it keeps only
    /// because a fleet server has not acknowledged them.
    static func retentionCandidates(
        _ policy: RetentionPolicy, now: Timestamp, in transaction: StoreReadTransaction
    ) throws -> (drop: [SessionID], keptUnacknowledged: Int) {
        var sessions = try transaction.sessions()
        sessions.sort { ($0.updated, $0.session) < ($1.updated, $1.session) }
        // The first sequence no destination that must acknowledge a session has acknowledged.
        let acknowledgedBefore = try acknowledgedBefore(policy, in: transaction)

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
