import RewindMachine
import RewindStore

/// A consistent read of a transition log: what projections and replay need from wherever the log
/// is kept. A device's LMDB store gives one per read transaction (`StoreReadTransaction`
/// conforms); the fleet server gives one over the records a device uploaded to PostgreSQL. The
/// replay engine (history, the state at a version, diff, verify) and the built-in projections
/// read a log only through this protocol, so they answer the same on a device and on a server.
///
/// Every call of one reader sees the same log: records appended after the reader began are not
/// seen by it (or, for a reader that cannot promise that, only at its end: a session's records
/// are never seen with a gap).
public protocol TransitionLogReader {
    /// The last global sequence in the log (0 when it is empty).
    func headSequence() throws -> UInt64

    /// The head of `session` (its latest version, record count, machine, times), or `nil` when
    /// the log holds no record of it.
    func sessionInfo(for session: SessionID) throws -> SessionInfo?

    /// Up to `limit` records of `session` in version order, from version `version` on (the first
    /// record of the session is version 1). Fewer than `limit` only at the session's head.
    func records(of session: SessionID, fromVersion version: UInt64, limit: Int) throws -> [TransitionRecord]

    /// Up to `limit` records of the whole log in commit order (global sequence), from sequence
    /// `sequence` on. Fewer than `limit` only at the log's head.
    func records(fromSequence sequence: UInt64, limit: Int) throws -> [TransitionRecord]

    /// The definition of machine `name` whose content version is `version` (as a record's
    /// `definition` names it), as stored beside the log, or `nil` when none is.
    ///
    /// - Throws: an error naming the definition when the stored one cannot be decoded.
    func storedDefinition(name: String, version: String) throws -> MachineDefinition?

    /// The JSON interchange document of the definition of machine `name` whose content version is
    /// `version`, exactly as stored beside the log (a session archive carries these bytes), or
    /// `nil` when none is. Defaults to ``storedDefinition(name:version:)``'s
    /// `MachineDefinition/jsonDocument()`, which is the stored document for every definition
    /// whose content version is its key.
    func storedDefinitionDocument(name: String, version: String) throws -> [UInt8]?

    /// The latest stored snapshot of `session` at or before `version`, when the log keeps
    /// snapshots (a cache: replay starts from it instead of version 1). Defaults to `nil`.
    func latestSnapshot(of session: SessionID, atOrBefore version: UInt64) throws -> SessionSnapshot?

    /// Whether `session` was erased from the log, and when and why (its tombstone), or `nil` when
    /// the log knows of no erasure of that id. Defaults to `nil`.
    func erasure(of session: SessionID) throws -> SessionErasure?
}

extension TransitionLogReader {
    /// The stored definition's interchange document, re-encoded.
    public func storedDefinitionDocument(name: String, version: String) throws -> [UInt8]? {
        try storedDefinition(name: name, version: version).map { Array($0.jsonDocument()) }
    }

    /// No snapshots: replay starts from version 1.
    public func latestSnapshot(of session: SessionID, atOrBefore version: UInt64) throws -> SessionSnapshot? {
        nil
    }

    /// No erasures.
    public func erasure(of session: SessionID) throws -> SessionErasure? {
        nil
    }

    /// The head of `session`, which the log must hold.
    ///
    /// - Throws: ``EngineError/sessionErased(_:_:)`` when it was erased,
    ///   ``EngineError/unknownSession(_:)`` when the log never held it, the log's errors.
    public func requireSessionInfo(for session: SessionID) throws -> SessionInfo {
        if let info = try sessionInfo(for: session) { return info }
        if let erasure = try erasure(of: session) { throw EngineError.sessionErased(session, erasure) }
        throw EngineError.unknownSession(session)
    }
}
