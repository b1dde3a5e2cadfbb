import RewindStore

/// What can go wrong with a projection. The log is never affected: a failing projection only
/// stops itself.
public enum ProjectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The projection's ``Projection/apply(_:to:)`` threw on the record at global sequence
    /// `sequence` (of `session`). Its states and checkpoint stay just before that record; it
    /// continues from there at the next catch-up (after the code is fixed). `cause` is what
    /// `apply` threw (or the ``ProjectionError`` of reading the state it would change).
    case applyFailed(projection: String, sequence: UInt64, session: SessionID, cause: ErrorCause)
    /// The projection's ``Projection/encode(_:into:)`` threw for the state under `key`.
    case stateEncodingFailed(projection: String, key: String, cause: ErrorCause)
    /// The projection's stored state under `key` cannot be decoded (`cause` is the decoder's error).
    case corruptedState(projection: String, key: String, cause: ErrorCause)
    /// The projection's stored checkpoint cannot be decoded.
    case corruptedCheckpoint(projection: String, reason: String)
    /// The name is empty, longer than 100 bytes, or contains NUL.
    case invalidName(String)
    /// A state key is longer than 400 bytes (LMDB keys are bounded).
    case invalidKey(projection: String, key: String)
    /// Another projection with this name is already registered with the engine.
    case alreadyRegistered(String)
    /// No projection with this name is registered with the engine.
    case notRegistered(String)

    /// A one-line explanation naming the projection and what failed.
    public var description: String {
        switch self {
        case .applyFailed(let projection, let sequence, let session, let reason):
            return
                "projection '\(projection)' failed on the record at sequence \(sequence) (session '\(session.excerpt)'): "
                + "\(reason); it stays at sequence \(sequence - 1) until caught up again"
        case .stateEncodingFailed(let projection, let key, let reason):
            return "projection '\(projection)' cannot encode its state for key '\(key)': \(reason)"
        case .corruptedState(let projection, let key, let reason):
            return "the stored state of projection '\(projection)' for key '\(key)' is corrupted: \(reason)"
        case .corruptedCheckpoint(let projection, let reason):
            return "the checkpoint of projection '\(projection)' is corrupted: \(reason)"
        case .invalidName(let name):
            return "invalid projection name \(name.debugDescription): use 1–100 bytes of UTF-8 without NUL"
        case .invalidKey(let projection, let key):
            return
                "projection '\(projection)' produced a key of \(key.utf8.count) bytes (at most 400): \(key.prefix(40))…"
        case .alreadyRegistered(let name):
            return "a projection named '\(name)' is already registered with this engine"
        case .notRegistered(let name):
            return "no projection named '\(name)' is registered with this engine"
        }
    }
}
