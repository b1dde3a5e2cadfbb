import RewindMachine
import RewindStore

/// A device's store read through the asynchronous interface, so that code written once against
/// ``AsyncTransitionLogReader`` — ``SessionLog/load(_:from:)``, a comparison of a server's log
/// with a device's — runs on a device store too.
///
/// Each call is a read transaction of its own (LMDB ties a read transaction to its thread, and an
/// async caller may resume on another). A call reads LMDB's memory map and waits on no I/O but
/// the page faults of what it reads. Records committed between two calls are seen only at the
/// log's end and never with a gap, as ``TransitionLogReader`` allows; an erasure or a trim
/// between two calls is seen by the later one.
extension TransitionStoreReader: AsyncTransitionLogReader {
    /// Up to `limit` records of `session` from version `version` on.
    public func records(of session: SessionID, fromVersion version: UInt64, limit: Int) async throws
        -> [TransitionRecord]
    {
        try read { try $0.records(of: session, fromVersion: version, limit: limit) }
    }

    /// Up to `limit` records of the log from global sequence `sequence` on.
    public func records(fromSequence sequence: UInt64, limit: Int) async throws -> [TransitionRecord] {
        try read { try $0.records(fromSequence: sequence, limit: limit) }
    }

    /// The bytes stored in the `definitions` database under `name` and `version`.
    public func storedDefinitionDocument(name: String, version: String) async throws -> [UInt8]? {
        try read { try $0.storedDefinitionDocument(name: name, version: version) }
    }

    /// The snapshot stored at a trimmed session's base version, or `nil` for a session whose
    /// history begins at version 1.
    public func baseSnapshot(of session: SessionID) async throws -> SessionSnapshot? {
        try read { transaction in
            guard let base = try transaction.sessionInfo(for: session)?.baseVersion else { return nil }
            return try transaction.latestSnapshot(of: session, atOrBefore: base)
        }
    }
}
