import RewindStore

/// What an erasure removed (``Engine/erase(_:)``, ``Engine/erase(where:)``).
public struct ErasureReport: Sendable, Hashable, Codable {
    /// The sessions erased, in id order.
    public var sessions: [SessionID]
    /// The records removed from the log.
    public var records: Int
    /// When the erasure was committed.
    public var erasedAt: Timestamp
    /// The number of the notice that tells the fleet server (`nil` when nothing was erased).
    public var notice: UInt64?
    /// The projections whose states were re-folded from the remaining log, because their keys are
    /// not only session ids (those of the others were deleted with their session).
    public var refoldedProjections: [String]

    /// Creates a report.
    public init(
        sessions: [SessionID], records: Int, erasedAt: Timestamp, notice: UInt64?, refoldedProjections: [String] = []
    ) {
        self.sessions = sessions
        self.records = records
        self.erasedAt = erasedAt
        self.notice = notice
        self.refoldedProjections = refoldedProjections
    }
}
