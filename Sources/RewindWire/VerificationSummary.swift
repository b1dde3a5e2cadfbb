import Rewind

/// Verification of sessions as `rewind verify --json` prints it and the fleet server's
/// `…/verify` answers it: every session's row and the totals.
public struct VerificationSummary: Codable, Sendable, Hashable {
    /// One session's verification.
    public struct Row: Codable, Sendable, Hashable {
        /// The session id.
        public var session: String
        /// Its machine.
        public var machine: String
        /// How many records were reproduced before the divergence (all when clean).
        public var verifiedRecords: UInt64
        /// The first divergence, described, or `nil` when the machine reproduces the session.
        public var divergence: String?
        /// The versions of redacted records the machine does not reproduce from their recorded
        /// values ("redacted: cannot be re-checked", not a divergence:
        /// ``VerificationReport/unverifiableRedactedVersions``); `nil` (absent in JSON) when none.
        public var redacted: [UInt64]?

        /// The row of `report` for a session of machine `machine`.
        public init(_ report: VerificationReport, machine: String) {
            session = report.session.rawValue
            self.machine = machine
            verifiedRecords = report.verifiedRecords
            divergence = report.divergence?.description
            redacted = report.unverifiableRedactedVersions.isEmpty ? nil : report.unverifiableRedactedVersions
        }
    }

    /// Every session's row, in the order verified.
    public var sessions: [Row]
    /// How many sessions were verified.
    public var verifiedSessions: Int
    /// How many records were reproduced in all.
    public var verifiedRecords: UInt64
    /// How many sessions diverged.
    public var diverged: Int

    /// The summary of `rows`.
    public init(_ rows: [Row]) {
        sessions = rows
        verifiedSessions = rows.count
        verifiedRecords = rows.reduce(0) { $0 + $1.verifiedRecords }
        diverged = rows.filter { $0.divergence != nil }.count
    }
}
