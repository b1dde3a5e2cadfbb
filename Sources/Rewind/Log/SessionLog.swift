import Foundation
import RewindMachine
import RewindStore

/// One session's log in memory — its head, its records and the definitions they name — read as a
/// ``TransitionLog``: what a log that is read asynchronously (``AsyncTransitionLogReader``) hands
/// to the synchronous replay engine. ``load(_:from:)`` reads it without blocking a thread;
/// ``LogReplay``, RewindWire's `HistoryRow` and `SessionListing` and the viewer then run over it in memory,
/// exactly as over a device's store.
///
/// The log holds this session only: ``TransitionLogReader/records(fromSequence:limit:)`` and
/// ``TransitionLogReader/sessionInfo(for:)`` answer about its records alone.
public struct SessionLog: TransitionLog, TransitionLogReader, Sendable {
    /// The session's head.
    public let info: SessionInfo
    /// The head sequence of the log the session was read from.
    public let logHead: UInt64
    /// The snapshot a trimmed session's history begins at (at ``SessionInfo/baseVersion``), or
    /// `nil` for a session whose history begins at version 1.
    public let base: SessionSnapshot?
    /// The session's records in version order, from ``SessionInfo/firstVersion`` (1, or the
    /// base's version: a trimmed session keeps that record) to ``SessionInfo/headVersion``.
    public let records: [TransitionRecord]
    /// The stored definition documents the records name, by machine and content version.
    public let definitionDocuments: [DefinitionName: [UInt8]]

    /// A machine definition's name and content version, as a record names it.
    public struct DefinitionName: Hashable, Sendable {
        /// The machine's name.
        public var machine: String
        /// The definition's content version.
        public var version: String

        /// The definition `version` of machine `machine`.
        public init(machine: String, version: String) {
            self.machine = machine
            self.version = version
        }
    }

    /// Records read per call while loading.
    static let pageSize = 1_000

    /// Reads `session` from `reader`: its head, every record up to it (from its base on, for a
    /// trimmed session, with the base's snapshot) and the stored definitions they name. `nil` when
    /// the log holds no record of the session.
    ///
    /// - Throws: the reader's errors; ``ReplayError/incompleteSession(_:reason:)`` when the reader
    ///   answers records that are not the session's versions in order, or no snapshot of a
    ///   trimmed session's base.
    public static func load(_ session: SessionID, from reader: some AsyncTransitionLogReader) async throws
        -> SessionLog?
    {
        let logHead = try await reader.headSequence()
        guard let info = try await reader.sessionInfo(for: session) else { return nil }
        let base = try await reader.base(of: info)
        var records: [TransitionRecord] = []
        records.reserveCapacity(Int(clamping: info.headVersion - min(info.headVersion, info.firstVersion - 1)))
        try await reader.pages(of: info) { records += $0 }
        var documents: [DefinitionName: [UInt8]] = [:]
        var names = records.map { DefinitionName(machine: $0.machine, version: $0.definition) }
        if let base { names.insert(DefinitionName(machine: info.machine, version: base.definition), at: 0) }
        var asked: Set<DefinitionName> = []
        for name in names where asked.insert(name).inserted {
            if let document = try await reader.storedDefinitionDocument(name: name.machine, version: name.version) {
                documents[name] = document
            }
        }
        return SessionLog(info: info, logHead: logHead, base: base, records: records, definitionDocuments: documents)
    }

    /// A session's log from its parts: ``records`` must be the versions from `info.firstVersion`
    /// (the base's, or 1) to `info.headVersion`, and `base` the snapshot at `info.baseVersion`.
    public init(
        info: SessionInfo, logHead: UInt64, base: SessionSnapshot? = nil, records: [TransitionRecord],
        definitionDocuments: [DefinitionName: [UInt8]]
    ) {
        self.info = info
        self.logHead = logHead
        self.base = base
        self.records = records
        self.definitionDocuments = definitionDocuments
    }

    /// The session's id.
    public var session: SessionID { info.session }

    // MARK: TransitionLog

    /// Calls `body` with this log (it never changes).
    public func readLog<R>(_ body: (any TransitionLogReader) throws -> R) throws -> R {
        try body(self)
    }

    // MARK: TransitionLogReader

    /// The head sequence of the log the session was read from.
    public func headSequence() throws -> UInt64 { logHead }

    /// The session's head; `nil` for any other session.
    public func sessionInfo(for session: SessionID) throws -> SessionInfo? {
        session == info.session ? info : nil
    }

    /// The session's records from `version` on.
    public func records(of session: SessionID, fromVersion version: UInt64, limit: Int) throws -> [TransitionRecord] {
        guard session == info.session, limit > 0, let first = records.first?.version, version <= info.headVersion else {
            return []
        }
        let start = Int(max(version, first) - first)
        return Array(records[start..<(start + min(limit, records.count - start))])
    }

    /// The base of a trimmed session when it is at or before `version` (the log keeps no other
    /// snapshot).
    public func latestSnapshot(of session: SessionID, atOrBefore version: UInt64) throws -> SessionSnapshot? {
        guard session == info.session, let base, base.version <= version else { return nil }
        return base
    }

    /// The session's records whose global sequence is `sequence` or later (this log holds no
    /// other session's).
    public func records(fromSequence sequence: UInt64, limit: Int) throws -> [TransitionRecord] {
        guard limit > 0 else { return [] }
        return Array(records.lazy.filter { $0.sequence >= sequence }.prefix(limit))
    }

    /// The stored definition `version` of machine `name`, decoded from its document.
    ///
    /// - Throws: ``ReplayError/invalidStoredDefinition(machine:version:cause:)`` when its
    ///   document does not decode.
    public func storedDefinition(name: String, version: String) throws -> MachineDefinition? {
        guard let document = definitionDocuments[DefinitionName(machine: name, version: version)] else { return nil }
        do {
            return try MachineDefinition(jsonDocument: Data(document))
        } catch {
            throw ReplayError.invalidStoredDefinition(machine: name, version: version, cause: ErrorCause(error))
        }
    }

    /// The stored definition document, byte for byte.
    public func storedDefinitionDocument(name: String, version: String) throws -> [UInt8]? {
        definitionDocuments[DefinitionName(machine: name, version: version)]
    }
}
