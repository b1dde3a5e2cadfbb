import Rewind

/// Checks the invariants of a whole log: the global sequence runs 1, 2, 3 … without a gap, and
/// each session's versions run 1, 2, 3 … in global order, each once.
public struct LogAudit: Sendable {
    /// Every record of the log, in global order.
    public let records: [TransitionRecord]
    /// Every broken invariant found, in words (empty when the log is sound).
    public let problems: [String]

    /// Reads the whole log of `store` and checks it.
    public init(_ store: TransitionStore) throws {
        records = try store.records()
        var problems: [String] = []
        var nextVersion: [SessionID: UInt64] = [:]
        for (offset, record) in records.enumerated() {
            let expected = UInt64(offset) + 1
            if record.sequence != expected {
                problems.append("sequence \(record.sequence) found where \(expected) was expected")
            }
            let version = nextVersion[record.session, default: 1]
            if record.version != version {
                problems.append(
                    "'\(record.session)' has version \(record.version) at sequence \(record.sequence), expected \(version)"
                )
            }
            nextVersion[record.session] = record.version + 1
        }
        var sequencesBySession: [SessionID: [UInt64]] = [:]
        for record in records { sequencesBySession[record.session, default: []].append(record.sequence) }
        for info in try store.sessions() {
            if nextVersion[info.session] != info.headVersion + 1 {
                problems.append(
                    "'\(info.session)' has head \(info.headVersion) but \((nextVersion[info.session] ?? 1) - 1) records"
                )
            }
            // The session index (blocks and the recent versions of the session's entry) lists
            // exactly the session's records of the log.
            let indexed = try store.records(of: info.session).map(\.sequence)
            if indexed != sequencesBySession[info.session, default: []] {
                problems.append(
                    "'\(info.session)': its index lists \(indexed.count) records, the log has \(sequencesBySession[info.session, default: []].count)"
                )
            }
        }
        self.problems = problems
    }

    /// The records of `session`, in version order.
    public func records(of session: String) -> [TransitionRecord] {
        records.filter { $0.session.rawValue == session }
    }
}
