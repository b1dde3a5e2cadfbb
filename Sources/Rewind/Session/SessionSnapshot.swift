import Foundation
import RewindMachine
import RewindStore

/// A session at one version: everything needed to continue it or to show it.
///
/// The engine stores one every ``EngineConfiguration/snapshotInterval`` versions (JSON, in the
/// store's `snapshots` database, key = session id and big-endian version) in the same LMDB
/// transaction as the record of that version, and resumes from the latest one plus the records
/// after it.
public struct SessionSnapshot: Sendable, Hashable, Codable {
    /// The session's version (0 before its first record).
    public var version: UInt64
    /// The content version of the machine definition the session ran under at this version.
    public var definition: String
    /// The interpreter's whole state: configuration, history memory, context, state data, queues.
    public var state: MachineState
    /// The navigation stack the user saw.
    public var navigation: NavigationStack
    /// When the record of this version was written (`nil` at version 0).
    public var timestamp: Timestamp?

    /// Creates a snapshot from its parts.
    public init(
        version: UInt64, definition: String, state: MachineState, navigation: NavigationStack,
        timestamp: Timestamp?
    ) {
        self.version = version
        self.definition = definition
        self.state = state
        self.navigation = navigation
        self.timestamp = timestamp
    }

    /// The snapshot of a session that has no record yet.
    public static func empty(definition: String) -> SessionSnapshot {
        SessionSnapshot(
            version: 0, definition: definition, state: MachineState(), navigation: NavigationStack(),
            timestamp: nil)
    }

    // MARK: Storage

    static func key(session: SessionID, version: UInt64) -> [UInt8] {
        StoreKey.compound(session.rawValue, version)
    }

    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array(try encoder.encode(self))
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, session: SessionID) throws -> SessionSnapshot {
        do {
            return try JSONDecoder().decode(SessionSnapshot.self, from: Data(bytes))
        } catch {
            throw EngineError.corruptedEntry(
                what: "the snapshot of session '\(session)'", reason: String(describing: error))
        }
    }

    /// The latest snapshot of `session` at or before `version`, if any.
    static func latest(
        of session: SessionID, atOrBefore version: UInt64, in transaction: StoreReadTransaction
    ) throws -> SessionSnapshot? {
        let prefix = StoreKey.compoundPrefix(session.rawValue)
        var found: SessionSnapshot?
        try transaction.forEach(in: .snapshots, from: key(session: session, version: version), direction: .backward) {
            key, value in
            guard key.count == prefix.count + 8, key.prefix(prefix.count).elementsEqual(prefix) else { return .stop }
            guard let split = StoreKey.splitCompound(key), split.number <= version else { return .next }
            found = try decode(value, session: session)
            return .stop
        }
        return found
    }
}
