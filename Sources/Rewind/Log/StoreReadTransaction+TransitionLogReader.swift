import Foundation
import RewindMachine
import RewindStore

/// A read transaction of a device's LMDB store is a consistent read of its log.
extension StoreReadTransaction: TransitionLogReader {
    /// Up to `limit` records of `session` from version `version` on.
    public func records(of session: SessionID, fromVersion version: UInt64, limit: Int) throws -> [TransitionRecord] {
        try records(of: session, from: version, direction: .forward, limit: limit)
    }

    /// Up to `limit` records of the log from global sequence `sequence` on.
    public func records(fromSequence sequence: UInt64, limit: Int) throws -> [TransitionRecord] {
        try records(from: sequence, limit: limit)
    }

    /// The definition stored in the `definitions` database under `name` and `version`.
    ///
    /// - Throws: ``EngineError/corruptedEntry(what:reason:cause:)`` when it cannot be decoded.
    public func storedDefinition(name: String, version: String) throws -> MachineDefinition? {
        guard let bytes = try value(forKey: Engine.definitionKey(name: name, version: version), in: .definitions) else {
            return nil
        }
        do {
            return try MachineDefinition(jsonDocument: Data(bytes))
        } catch {
            throw EngineError.corruptedEntry(
                what: "the stored definition \(name)@\(version)", reason: String(describing: error),
                cause: ErrorCause(error))
        }
    }

    /// The bytes stored in the `definitions` database under `name` and `version`.
    public func storedDefinitionDocument(name: String, version: String) throws -> [UInt8]? {
        try value(forKey: Engine.definitionKey(name: name, version: version), in: .definitions)
    }

    /// The latest readable snapshot of `session` in the `snapshots` database at or before `version`.
    public func latestSnapshot(of session: SessionID, atOrBefore version: UInt64) throws -> SessionSnapshot? {
        try SessionSnapshot.latest(of: session, atOrBefore: version, in: self)
    }
}
