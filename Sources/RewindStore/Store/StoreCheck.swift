/// The first inconsistency ``TransitionStore/check(progress:)`` found, and where.
public struct StoreProblem: Sendable, Hashable, CustomStringConvertible {
    /// Where: e.g. `"log sequence 1234"`, `"session-index of 'kanji-3' version 33"`,
    /// `"snapshot of 'map-2' at version 64"`.
    public var location: String
    /// What is wrong there.
    public var reason: String

    /// Creates a problem.
    public init(location: String, reason: String) {
        self.location = location
        self.reason = reason
    }

    /// `"<location>: <reason>"`.
    public var description: String { "\(location): \(reason)" }

    /// The problem a store error names (the record or entry it is about).
    public init(_ error: StoreError, context: String) {
        switch error {
        case .corruptedRecord(let sequence, let reason):
            self.init(location: "log sequence \(sequence)", reason: reason)
        case .corruptedEntry(let database, let key, let reason):
            self.init(location: "database '\(database)' entry \(key)", reason: reason)
        default:
            self.init(location: context, reason: error.description)
        }
    }
}

/// What a walk of the whole store found: how much it checked, and the first problem, if any.
public struct StoreCheckReport: Sendable, Hashable, CustomStringConvertible {
    /// The records of the log checked (decoded, checksums verified, sequence gap-free but for
    /// erased ranges).
    public var records: UInt64
    /// The global sequences the log accounts for as erased (see `rewind erase`).
    public var erased: UInt64 = 0
    /// The sessions whose entries and index were checked against the log.
    public var sessions: Int
    /// The snapshots checked (decoded; compared with a replay by `Engine.checkStore`).
    public var snapshots: Int
    /// The projection checkpoints checked.
    public var checkpoints: Int
    /// The first problem, or `nil` when the store is consistent.
    public var problem: StoreProblem?

    /// Creates a report.
    public init(
        records: UInt64 = 0, sessions: Int = 0, snapshots: Int = 0, checkpoints: Int = 0,
        problem: StoreProblem? = nil
    ) {
        self.records = records
        self.sessions = sessions
        self.snapshots = snapshots
        self.checkpoints = checkpoints
        self.problem = problem
    }

    /// Whether no problem was found.
    public var isConsistent: Bool { problem == nil }

    /// One line: the problem, or what was checked.
    public var description: String {
        if let problem { return "problem at \(problem)" }
        return "store consistent: \(records) records\(erased > 0 ? " (\(erased) sequences erased)" : ""), "
            + "\(sessions) sessions, \(snapshots) snapshots, \(checkpoints) checkpoints checked"
    }
}

/// How far a store check has come.
public struct StoreCheckProgress: Sendable, Hashable {
    /// What a check walks, in order.
    public enum Stage: String, Sendable, Hashable {
        /// Every record of the log.
        case log
        /// Every session's entry and index against the log.
        case sessions
        /// Every snapshot, against a replay of its session.
        case snapshots
    }

    /// The stage running.
    public var stage: Stage
    /// Items of the stage done (records, sessions, snapshots' records replayed).
    public var done: UInt64
    /// Items of the stage in all.
    public var total: UInt64

    /// Creates a progress report.
    public init(stage: Stage, done: UInt64, total: UInt64) {
        self.stage = stage
        self.done = done
        self.total = total
    }
}

extension TransitionStore {
    /// Walks the log, the sessions and the session index in one read transaction and reports the
    /// first inconsistency: a record that does not decode or whose checksum fails, a gap in the
    /// global sequence, a session whose versions skip, a `sessions` entry (advanced by the log's
    /// tail) or a `session-index` block that disagrees with the log, a session with records but
    /// no entry. Snapshots are decoded and counted; comparing them with a replay (and checking
    /// projection checkpoints) needs the machines: `Engine.checkStore(progress:)` does both.
    ///
    /// Reads only (works on a store opened read-only). `progress` is called every few thousand
    /// items and at the end of each stage.
    ///
    /// - Throws: LMDB's errors; inconsistencies are the report's ``StoreCheckReport/problem``.
    public func check(progress: (StoreCheckProgress) -> Void = { _ in }) throws -> StoreCheckReport {
        try read { transaction in try transaction.checkLogAndSessions(progress: progress) }
    }
}

extension StoreReadTransaction {
    /// The log and session part of ``TransitionStore/check(progress:)``, in this transaction.
    /// `inspect` sees every decoded record of the log, in order, and may name a problem with it
    /// (the engine checks records against their definitions there).
    package func checkLogAndSessions(
        progress: (StoreCheckProgress) -> Void,
        inspect: (TransitionRecord) throws -> StoreProblem? = { _ in nil }
    ) throws -> StoreCheckReport {
        var report = StoreCheckReport()
        let head: UInt64
        do {
            head = try headSequence()
        } catch let error as StoreError {
            report.problem = StoreProblem(error, context: "the log's last key")
            return report
        }
        // The log: gap-free but for erased ranges, every record decodes (checksum included),
        // versions consecutive.
        var logSessions: [SessionID: [UInt64]] = [:]
        var firstVersions: [SessionID: UInt64] = [:]
        var expected: UInt64 = 1
        let erased: [ClosedRange<UInt64>]
        do {
            erased = try erasedRanges()
        } catch let error as StoreError {
            report.problem = StoreProblem(error, context: "the erased ranges in '\(StoreLayout.meta)'")
            return report
        }
        var nextErased = 0
        /// The problem of a gap from `expected` to just before `sequence`, if any: a gap must be
        /// exactly one erased range.
        func gapProblem(before sequence: UInt64) -> StoreProblem? {
            guard sequence != expected else { return nil }
            if nextErased < erased.count, erased[nextErased] == expected...(sequence - 1) {
                report.erased += sequence - expected
                nextErased += 1
                expected = sequence
                return nil
            }
            return StoreProblem(
                location: "log sequence \(expected)",
                reason: "it is missing: the log goes from sequence \(expected - 1) to \(sequence), and no erased "
                    + "range accounts for \(expected)…\(sequence - 1)")
        }
        do {
            var recent = RecentStrings()
            try transaction.forEach(in: databases.log) { key, value in
                let sequence = try Self.sequence(ofLogKey: key)
                if let problem = gapProblem(before: sequence) {
                    report.problem = problem
                    return .stop
                }
                let record = try RecordCodec.decode(value, sequence: sequence, reusing: &recent)
                if firstVersions[record.session] == nil {
                    // A trimmed session's records begin at its base version (its entry says which).
                    firstVersions[record.session] = try sessionInfo(for: record.session)?.firstVersion ?? 1
                }
                let first = firstVersions[record.session] ?? 1
                let previous = first - 1 + UInt64(logSessions[record.session]?.count ?? 0)
                guard record.version == previous + 1 else {
                    report.problem = StoreProblem(
                        location: "log sequence \(sequence)",
                        reason: "session '\(record.session)' version \(record.version) follows its version \(previous)")
                    return .stop
                }
                if let problem = try inspect(record) {
                    report.problem = problem
                    return .stop
                }
                logSessions[record.session, default: []].append(sequence)
                report.records += 1
                expected += 1
                if sequence % 4096 == 0 { progress(StoreCheckProgress(stage: .log, done: sequence, total: head)) }
                return .next
            }
        } catch let error as StoreError {
            report.problem = StoreProblem(error, context: "log sequence \(expected)")
        }
        if report.problem == nil, head >= expected { report.problem = gapProblem(before: head + 1) }
        if report.problem == nil, nextErased < erased.count {
            report.problem = StoreProblem(
                location: "the erased range \(erased[nextErased].lowerBound)…\(erased[nextErased].upperBound)",
                reason: "the log holds records in it")
        }
        if report.problem != nil { return report }
        progress(StoreCheckProgress(stage: .log, done: head, total: head))

        // The sessions: each entry (advanced by the tail) and its index against the log.
        let total = UInt64(logSessions.count)
        var seen = Set<SessionID>()
        do {
            try forEachSession { info in
                let session = info.session
                seen.insert(session)
                report.sessions += 1
                if let problem = try checkSession(info, against: logSessions[session] ?? []) {
                    report.problem = problem
                    return .stop
                }
                if report.sessions % 1024 == 0 {
                    progress(StoreCheckProgress(stage: .sessions, done: UInt64(report.sessions), total: total))
                }
                return .next
            }
        } catch let error as StoreError {
            report.problem = StoreProblem(error, context: "database '\(StoreLayout.sessions)'")
        }
        if report.problem != nil { return report }
        if let missing = logSessions.keys.filter({ !seen.contains($0) }).min() {
            report.problem = StoreProblem(
                location: "database '\(StoreLayout.sessions)' entry '\(missing)'",
                reason: "it is missing, but the log holds \(logSessions[missing]?.count ?? 0) records of the session "
                    + "(the first at sequence \(logSessions[missing]?.first ?? 0))")
            return report
        }
        progress(StoreCheckProgress(stage: .sessions, done: UInt64(report.sessions), total: total))
        return report
    }

    /// The first disagreement of session `info` (as entry and tail say) and its index with
    /// `sequences`, the sequences of its records in the log.
    private func checkSession(_ info: SessionInfo, against sequences: [UInt64]) throws -> StoreProblem? {
        let session = info.session
        let entry = "database '\(StoreLayout.sessions)' entry '\(session.excerpt)'"
        guard !sequences.isEmpty else {
            return StoreProblem(location: entry, reason: "the log holds no record of this session")
        }
        // Versions `base…head`: a trimmed session's records begin at its base version.
        let base = info.firstVersion
        guard info.headVersion == base - 1 + UInt64(sequences.count), info.recordCount == UInt64(sequences.count) else {
            return StoreProblem(
                location: entry,
                reason:
                    "its head is version \(info.headVersion) with \(info.recordCount) records from version \(base), "
                    + "but the log holds \(sequences.count) records of the session")
        }
        guard info.headSequence == sequences[sequences.count - 1] else {
            return StoreProblem(
                location: entry,
                reason: "its head is at sequence \(info.headSequence), but the session's last record is at sequence "
                    + "\(sequences[sequences.count - 1])")
        }
        var problem: StoreProblem?
        var next = base
        try forEachSequence(of: session, from: base, direction: .forward) { version, sequence in
            let location = "database '\(StoreLayout.sessionIndex)' entry '\(session.excerpt)' version \(version)"
            guard version == next else {
                problem = StoreProblem(location: location, reason: "version \(next) was expected here")
                return .stop
            }
            guard sequence == sequences[Int(version - base)] else {
                problem = StoreProblem(
                    location: location,
                    reason: "it points at sequence \(sequence), but the log holds the version at sequence "
                        + "\(sequences[Int(version - base)])")
                return .stop
            }
            next += 1
            return next <= info.headVersion ? .next : .stop
        }
        if problem == nil, next != info.headVersion + 1 {
            problem = StoreProblem(
                location: "database '\(StoreLayout.sessionIndex)' entry '\(session.excerpt)' version \(next)",
                reason: "it is missing (the session's head is version \(info.headVersion))")
        }
        return problem
    }
}
