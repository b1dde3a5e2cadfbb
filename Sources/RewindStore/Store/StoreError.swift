import RewindValues

/// A domain error of the transition store. LMDB failures are reported as `LMDBError` instead.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An append's expected version did not match the session's head version; nothing of that
    /// session's append was written. `actual` is 0 when the session does not exist.
    case versionConflict(session: SessionID, expected: ExpectedVersion, actual: UInt64)
    /// The record at global sequence `sequence` cannot be decoded (truncated, corrupted, unknown
    /// record format or failed checksum).
    case corruptedRecord(sequence: UInt64, reason: String)
    /// An entry of another database (`database`) cannot be decoded.
    case corruptedEntry(database: String, key: String, reason: String)
    /// The store was written by a newer format than this code supports.
    case unsupportedFormat(found: UInt32, supported: UInt32)
    /// The directory is not a Rewind store (and was left untouched); `cause` is the error that
    /// showed it (an ``LMDBError`` with code ``LMDBError/Code/invalid``, say) when there was one.
    case notAStore(path: String, reason: String, cause: ErrorCause? = nil)
    /// The store cannot be opened read-only as it is (an older format, databases not created
    /// yet): a read-write open would change it first. Nothing was changed.
    case needsWriteAccess(path: String, reason: String)
    /// A session id is invalid (empty, too long or containing a NUL character; for a new session,
    /// containing a control character).
    case invalidSessionID(String, reason: String)
    /// The transition at `index` of an append to `session` is invalid; nothing was written.
    case invalidTransition(session: SessionID, index: Int, reason: String)
    /// An append to `session` carried no transitions.
    case emptyAppend(session: SessionID)
    /// `session` was erased (``SessionErasure``): it cannot be resumed, replayed, exported,
    /// forked or appended to, and its id cannot start a new session.
    case sessionErased(session: SessionID, erasure: SessionErasure)

    /// A sentence naming what failed and where.
    public var description: String {
        switch self {
        case .versionConflict(let session, let expected, let actual):
            return "version conflict in session '\(session.excerpt)': expected \(expected), actual version \(actual)"
                + (actual == 0 ? " (no such session)" : "")
        case .corruptedRecord(let sequence, let reason):
            return "corrupted record at sequence \(sequence): \(reason)"
        case .corruptedEntry(let database, let key, let reason):
            return "corrupted entry \(key) in database '\(database)': \(reason)"
        case .unsupportedFormat(let found, let supported):
            return "unsupported store format \(found): this version of Rewind reads formats up to \(supported)"
        case .notAStore(let path, let reason, _):
            return "'\(path)' is not a Rewind store: \(reason)"
        case .needsWriteAccess(let path, let reason):
            return "'\(path)' cannot be read without writing it first: \(reason)"
        case .invalidSessionID(let id, let reason):
            return "invalid session id '\(DisplayText.excerpt(id))': \(reason)"
        case .invalidTransition(let session, let index, let reason):
            return "invalid transition \(index) of the append to session '\(session.excerpt)': \(reason)"
        case .emptyAppend(let session):
            return "empty append to session '\(session.excerpt)': an append needs at least one transition"
        case .sessionErased(let session, let erasure):
            return "session '\(session.excerpt)' was erased at \(erasure.erasedAt) (\(erasure.reason)): "
                + "nothing of it is kept, and its id cannot be used again"
        }
    }
}
