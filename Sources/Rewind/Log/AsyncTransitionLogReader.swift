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

    /// The content versions of the definitions `session`'s records from version `version` on
    /// were written under, each once, in the order they first appear: what an archive's header
    /// lists (``SessionArchiveStream``). Defaults to reading the records; a log that keeps the
    /// version beside each record answers from that (the fleet server's, in one query).
    func definitionVersions(of session: SessionID, fromVersion version: UInt64) async throws -> [String]
}

extension AsyncTransitionLogReader {
    /// No bases: every session's history begins at version 1.
    public func baseSnapshot(of session: SessionID) async throws -> SessionSnapshot? { nil }

    /// The versions read from the records, a page at a time.
    public func definitionVersions(of session: SessionID, fromVersion version: UInt64) async throws -> [String] {
        var versions: [String] = []
        var next = version
        while true {
            let page = try await records(of: session, fromVersion: next, limit: SessionLog.pageSize)
            guard let last = page.last, last.version >= next else { break }
            for record in page where versions.last != record.definition { versions.append(record.definition) }
            next = last.version + 1
        }
        return SessionArchive.Writer.definitionVersions(versions)
    }

    /// The base of `info`'s session when its history was trimmed (at ``SessionInfo/baseVersion``),
    /// `nil` for one whose history begins at version 1.
    ///
    /// - Throws: ``ReplayError/incompleteSession(_:reason:)`` when the log holds no snapshot of
    ///   the base's version; the reader's errors.
    func base(of info: SessionInfo) async throws -> SessionSnapshot? {
        guard let version = info.baseVersion else { return nil }
        guard let snapshot = try await baseSnapshot(of: info.session), snapshot.version == version else {
            throw ReplayError.incompleteSession(
                info.session,
                reason: "its history begins at version \(version), and the log holds no snapshot of that version")
        }
        return snapshot
    }

    /// Reads the records of `info`'s session from its first version to its head (`info`'s) a page
    /// of ``SessionLog/pageSize`` at a time, and calls `body` with each page.
    ///
    /// - Throws: ``ReplayError/incompleteSession(_:reason:)`` when the reader answers records
    ///   that are not the session's versions in order, or fewer than its head counts (the session
    ///   erased or trimmed meanwhile); the reader's and `body`'s errors.
    func pages(of info: SessionInfo, _ body: ([TransitionRecord]) async throws -> Void) async throws {
        let session = info.session
        let first = info.firstVersion
        guard info.headVersion >= first || info.baseVersion == nil else {
            throw ReplayError.incompleteSession(
                session, reason: "its head, version \(info.headVersion), is below its base, version \(first)")
        }
        var next = first
        while next <= info.headVersion {
            let page = try await records(
                of: session, fromVersion: next,
                limit: Int(clamping: min(UInt64(SessionLog.pageSize), info.headVersion - next + 1)))
            guard !page.isEmpty else { break }
            for record in page {
                guard record.session == session, record.version == next else {
                    throw ReplayError.incompleteSession(
                        session,
                        reason: "the log answered version \(record.version) of '\(record.session)' "
                            + "where version \(next) was due")
                }
                next += 1
            }
            try await body(page)
        }
        guard next == info.headVersion + 1 else {
            let read = next - first
            throw ReplayError.incompleteSession(
                session,
                reason: first == 1
                    ? "the log holds \(read) of its \(info.headVersion) versions"
                    : "the log holds \(read) of its \(info.headVersion - min(info.headVersion, first - 1)) versions from its base, version \(first)"
            )
        }
    }
}
