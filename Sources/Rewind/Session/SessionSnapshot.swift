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
    /// The navigation stack the user saw, each entry with its screen's data.
    public var navigation: ScreenStack
    /// When the record of this version was written (`nil` at version 0).
    public var timestamp: Timestamp?

    /// Creates a snapshot from its parts.
    public init(
        version: UInt64, definition: String, state: MachineState, navigation: ScreenStack,
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
            version: 0, definition: definition, state: MachineState(), navigation: ScreenStack(),
            timestamp: nil)
    }

    // MARK: Storage

    package static func key(session: SessionID, version: UInt64) -> [UInt8] {
        StoreKey.compound(session.rawValue, version)
    }

    /// The snapshot's JSON: the bytes its `Codable` encoding gives with `.sortedKeys`, written
    /// member by member with no `JSONValue` tree in between (see `JSONObjectWriter`: through a
    /// tree a snapshot cost about 37,000 instructions; callgrind, Benchmarks/HISTORY.md 2026-12-01).
    ///
    /// - Throws: ``JSONWriteError`` when the context or state data hold NaN or an infinity.
    func encoded() throws(JSONWriteError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        var object = JSONObjectWriter(into: &bytes)
        try object.member("definition", string: definition, into: &bytes)
        try object.member("navigation", into: &bytes) { bytes throws(JSONWriteError) in
            try navigation.writeJSON(into: &bytes)
        }
        try object.member("state", into: &bytes) { bytes throws(JSONWriteError) in try state.writeJSON(into: &bytes) }
        if let timestamp {
            try object.member("timestamp", into: &bytes) { bytes throws(JSONWriteError) in
                var members = JSONObjectWriter(into: &bytes)
                try members.member(
                    "microsecondsSince1970", integer: JSONNumber(timestamp.microsecondsSince1970), into: &bytes)
                members.end(into: &bytes)
            }
        }
        try object.member("version", integer: JSONNumber(version), into: &bytes)
        object.end(into: &bytes)
        return bytes
    }

    /// The snapshot stored as `bytes` (by ``encoded()`` or by `JSONEncoder`): parsed by hand, or by
    /// `JSONDecoder` when the text is JSON but not of the shape the fast path reads exactly.
    static func decode(_ bytes: UnsafeRawBufferPointer, session: SessionID) throws -> SessionSnapshot {
        try decodeStored(bytes, session: session).snapshot
    }

    /// The snapshot stored as `bytes`, and whether its navigation entries hold all their data: a
    /// snapshot of the first format (`{"screens": […]}`, written before entries had data) knows
    /// only the top entry's data (``firstFormat(_:showing:)``).
    static func decodeStored(
        _ bytes: UnsafeRawBufferPointer, session: SessionID
    ) throws -> (snapshot: SessionSnapshot, hasEntryData: Bool) {
        do {
            let value = try JSONValue(jsonBytes: bytes)
            let snapshot = try SessionSnapshot(jsonValue: value)
            return (snapshot, value["navigation"]?["entries"] != nil || snapshot.navigation.count <= 1)
        } catch let error as JSONParseError {
            throw EngineError.corruptedEntry(
                what: "the snapshot of session '\(session.excerpt)'", reason: String(describing: error),
                cause: ErrorCause(error))
        } catch {
            // Well-formed JSON the fast path does not read exactly: let `Codable` judge it.
        }
        do {
            let snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: Data(bytes))
            let probe = try JSONDecoder().decode(NavigationProbe.self, from: Data(bytes))
            return (snapshot, probe.navigation.entries != nil || snapshot.navigation.count <= 1)
        } catch {
            throw EngineError.corruptedEntry(
                what: "the snapshot of session '\(session.excerpt)'", reason: String(describing: error),
                cause: ErrorCause(error))
        }
    }

    /// Whether a stored snapshot's stack has `entries`.
    private struct NavigationProbe: Decodable {
        var navigation: EntriesProbe
    }

    /// The snapshot as the JSON value of its `Codable` encoding.
    var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "version": .number(version),
            "definition": .string(definition),
            "state": state.jsonValue,
            "navigation": navigation.jsonValue,
        ]
        if let timestamp {
            members["timestamp"] = .object([
                "microsecondsSince1970": .number(timestamp.microsecondsSince1970)
            ])
        }
        return .object(members)
    }

    /// The snapshot a JSON value of its `Codable` encoding stands for.
    init(jsonValue: JSONValue) throws(JSONShapeError) {
        let members = try JSONShape.object(jsonValue, at: [])
        let version = try JSONShape.uint64(try JSONShape.member("version", of: members, at: []), at: ["version"])
        let definition = try JSONShape.string(
            try JSONShape.member("definition", of: members, at: []), at: ["definition"])
        let state: MachineState
        do {
            state = try MachineState(jsonValue: try JSONShape.member("state", of: members, at: []))
        } catch {
            throw JSONShapeError(path: ["state"] + error.path, expected: error.expected)
        }
        var navigation: ScreenStack
        let navigationValue = try JSONShape.member("navigation", of: members, at: [])
        do {
            navigation = try ScreenStack(jsonValue: navigationValue)
        } catch {
            throw JSONShapeError(path: ["navigation"] + error.path, expected: error.expected)
        }
        if navigationValue["entries"] == nil { navigation = Self.firstFormat(navigation, showing: state) }
        var timestamp: Timestamp?
        if let value = members["timestamp"], !value.isNull {
            let timestampMembers = try JSONShape.object(value, at: ["timestamp"])
            timestamp = Timestamp(
                microsecondsSince1970: try JSONShape.int64(
                    try JSONShape.member("microsecondsSince1970", of: timestampMembers, at: ["timestamp"]),
                    at: ["timestamp", "microsecondsSince1970"]))
        }
        self.init(
            version: version, definition: definition, state: state, navigation: navigation, timestamp: timestamp)
    }

    /// A stack read from a snapshot of the first format (`{"screens": […]}`, no data) with the
    /// best data it can have: the top screen is the one the state shows, so when its state is
    /// active with data, that is the top entry's data; the entries below stay without data.
    static func firstFormat(_ navigation: ScreenStack, showing state: MachineState) -> ScreenStack {
        guard let top = navigation.top, let data = state.data[top.screen], !data.isNull, state.isActive(top.screen)
        else { return navigation }
        var entries = navigation.entries
        entries[entries.count - 1].data = data
        return ScreenStack(entries: entries)
    }

    private enum CodingKeys: String, CodingKey {
        case version, definition, state, navigation, timestamp
    }

    /// Whether a stack's encoding has `entries` (else it is of the first format).
    private struct EntriesProbe: Decodable {
        var entries: [NavigationEntry]?
    }

    /// Decodes the `Codable` encoding; a navigation stack of the first format gets its top
    /// entry's data as ``firstFormat(_:showing:)`` says.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(UInt64.self, forKey: .version)
        definition = try container.decode(String.self, forKey: .definition)
        state = try container.decode(MachineState.self, forKey: .state)
        navigation = try container.decode(ScreenStack.self, forKey: .navigation)
        timestamp = try container.decodeIfPresent(Timestamp.self, forKey: .timestamp)
        if try container.decode(EntriesProbe.self, forKey: .navigation).entries == nil {
            navigation = Self.firstFormat(navigation, showing: state)
        }
    }

    /// The latest readable snapshot of `session` at or before `version`, if any (unreadable ones
    /// are skipped).
    static func latest(
        of session: SessionID, atOrBefore version: UInt64, in transaction: StoreReadTransaction
    ) throws -> SessionSnapshot? {
        let prefix = StoreKey.compoundPrefix(session.rawValue)
        var found: SessionSnapshot?
        try transaction.forEach(in: .snapshots, from: key(session: session, version: version), direction: .backward) {
            key, value in
            guard key.count == prefix.count + 8, key.prefix(prefix.count).elementsEqual(prefix) else { return .stop }
            guard let split = StoreKey.splitCompound(key), split.number <= version else { return .next }
            // Snapshots are a cache of what the log says: one that cannot be read (or that is not
            // the version its key names) is passed over for an older one, or for a replay from
            // version 1, so a damaged snapshot never makes a session unreadable. So is one of the
            // first format whose stack has entries below the top: it lacks their data, which the
            // records before it hold (a replay restores it, and the next snapshot keeps it).
            guard let stored = try? decodeStored(value, session: session), stored.snapshot.version == split.number,
                stored.hasEntryData
            else {
                return .next
            }
            found = stored.snapshot
            return .stop
        }
        return found
    }
}
