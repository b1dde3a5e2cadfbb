import RewindMachine
import RewindStore

/// A consistent read of a transition log kept where reading means waiting — a fleet server's
/// PostgreSQL, a log behind a network: the questions of ``TransitionLogReader``, asked
/// asynchronously, so that no thread is ever blocked on the answer.
///
/// Replay and projections stay synchronous (they fold records in memory); what they need of such
/// a log is loaded first, with these calls, into a log in memory: ``SessionLog/load(_:from:)``
/// for one session's replay. Every call of one reader sees the same log, as for
/// ``TransitionLogReader``.
public protocol AsyncTransitionLogReader: Sendable {
    /// The last global sequence in the log (0 when it is empty).
    func headSequence() async throws -> UInt64

    /// The head of `session`, or `nil` when the log holds no record of it.
    func sessionInfo(for session: SessionID) async throws -> SessionInfo?

    /// Up to `limit` records of `session` in version order, from version `version` on. Fewer
    /// than `limit` only at the session's head.
    func records(of session: SessionID, fromVersion version: UInt64, limit: Int) async throws -> [TransitionRecord]

    /// Up to `limit` records of the whole log in commit order, from sequence `sequence` on.
    /// Fewer than `limit` only at the log's head.
    func records(fromSequence sequence: UInt64, limit: Int) async throws -> [TransitionRecord]

    /// The JSON interchange document of the definition of machine `name` whose content version is
    /// `version`, exactly as stored beside the log, or `nil` when none is.
    func storedDefinitionDocument(name: String, version: String) async throws -> [UInt8]?

    /// The snapshot a trimmed session's history begins at (the state at its
    /// ``SessionInfo/baseVersion``), or `nil` when the log keeps none. Defaults to `nil`.
    func baseSnapshot(of session: SessionID) async throws -> SessionSnapshot?
}

extension AsyncTransitionLogReader {
    /// No bases: every session's history begins at version 1.
    public func baseSnapshot(of session: SessionID) async throws -> SessionSnapshot? { nil }
}
