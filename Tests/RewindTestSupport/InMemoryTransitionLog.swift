import Rewind

/// A second, real ``TransitionLogReader``: a transition log kept in memory, as a fleet server
/// keeps the records devices upload (no LMDB, no snapshots). Built by copying an engine's store:
/// every record, every session's head and the stored definition of every (machine, content
/// version) a record names, so that replay over it must agree with the engine's replay over
/// LMDB.
public struct InMemoryTransitionLog: TransitionLog, TransitionLogReader {
    /// Every record in global sequence order.
    public private(set) var records: [TransitionRecord]
    /// Each session's records in version order.
    private var bySession: [SessionID: [TransitionRecord]]
    /// Each session's head.
    private var infos: [SessionID: SessionInfo]
    /// The stored definitions, by machine name and content version.
    private var definitions: [DefinitionKey: MachineDefinition]

    private struct DefinitionKey: Hashable {
        var name: String
        var version: String
    }

    /// A copy of what `engine`'s store holds: its records, its sessions' heads and the stored
    /// definitions its records name (read with ``Engine/storedDefinition(name:version:)``).
    public init(copying engine: Engine) throws {
        records = try engine.store.read { try $0.records(from: 1) }
        bySession = Dictionary(grouping: records, by: \.session).mapValues { $0.sorted { $0.version < $1.version } }
        infos = [:]
        for info in try engine.sessions() { infos[info.session] = info }
        definitions = [:]
        for record in records where definitions[DefinitionKey(name: record.machine, version: record.definition)] == nil
        {
            let key = DefinitionKey(name: record.machine, version: record.definition)
            definitions[key] = try engine.storedDefinition(name: record.machine, version: record.definition)
        }
    }

    /// This log without the stored definition of `name` at content version `version` (a
    /// server that never received it).
    public func removingDefinition(name: String, version: String) -> InMemoryTransitionLog {
        var copy = self
        copy.definitions[DefinitionKey(name: name, version: version)] = nil
        return copy
    }

    /// The content versions of the stored definitions of machine `name`.
    public func definitionVersions(of name: String) -> Set<String> {
        Set(definitions.keys.filter { $0.name == name }.map(\.version))
    }

    // MARK: TransitionLog

    /// Runs `body` with this log as its reader (a value: it does not change while read).
    public func readLog<R>(_ body: (any TransitionLogReader) throws -> R) throws -> R {
        try body(self)
    }

    // MARK: TransitionLogReader

    /// The last record's sequence.
    public func headSequence() throws -> UInt64 {
        records.last?.sequence ?? 0
    }

    /// The copied head of `session`.
    public func sessionInfo(for session: SessionID) throws -> SessionInfo? {
        infos[session]
    }

    /// Up to `limit` records of `session` from version `version` on.
    public func records(of session: SessionID, fromVersion version: UInt64, limit: Int) throws -> [TransitionRecord] {
        guard limit > 0, let all = bySession[session] else { return [] }
        let start = all.firstIndex { $0.version >= version } ?? all.endIndex
        return Array(all[start...].prefix(limit))
    }

    /// Up to `limit` records from sequence `sequence` on.
    public func records(fromSequence sequence: UInt64, limit: Int) throws -> [TransitionRecord] {
        guard limit > 0 else { return [] }
        let start = records.firstIndex { $0.sequence >= sequence } ?? records.endIndex
        return Array(records[start...].prefix(limit))
    }

    /// The copied definition (the reader's default gives its document: re-encoded).
    public func storedDefinition(name: String, version: String) throws -> MachineDefinition? {
        definitions[DefinitionKey(name: name, version: version)]
    }
}
