import Foundation
import PostgresNIO
import Rewind

/// Columns the server extracts from a projection's state into `projection_states`, so that SQL
/// can filter and order sessions without decoding states (the state itself stays the
/// projection's own bytes).
struct StateColumns: Sendable, Equatable {
    /// The session's machine.
    var machine: String?
    /// The active configuration (the screen-flow projection's).
    var configuration: [String]?
    /// The time of the session's last record, in µs since 1970.
    var updatedAtMicroseconds: Int64?
    /// The navigation stack's depth (the navigation projection's).
    var depth: Int32?
}

/// A projection the server keeps in PostgreSQL: the root's ``Projection`` itself (its `key`,
/// `apply`, `encode` and `decode` run here exactly as on a device) and how to extract its
/// ``StateColumns``.
struct ServerProjection<P: Projection>: Sendable {
    /// The projection, as a device runs it.
    let projection: P
    /// The columns extracted from a state.
    let columns: @Sendable (P.State) -> StateColumns

    /// A state decoded from its stored bytes.
    func decode(_ buffer: ByteBuffer) throws -> P.State {
        try buffer.readableBytesView.withUnsafeBytes { try projection.decode($0) }
    }
}

/// The built-in projections the server keeps for every store, in the order they are folded.
enum ServerProjections {
    /// Screen flows: where every session is and every state it reached (funnels, the state filter).
    static let screenFlows = ServerProjection(projection: ScreenFlowProjection()) { flow in
        StateColumns(machine: flow.machine, configuration: flow.configuration,
                     updatedAtMicroseconds: flow.updated.microsecondsSince1970, depth: nil)
    }

    /// Navigation stacks, their entries with the data their screens were entered with. The
    /// records' state data is decoded with the default JSON coder (a device's store's default).
    static let navigation = ServerProjection(projection: NavigationProjection()) { navigation in
        StateColumns(machine: navigation.machine, configuration: nil, updatedAtMicroseconds: nil,
                     depth: Int32(clamping: navigation.stack.count))
    }

    /// Every projection's name and version, for status and catch-up.
    static let all: [(name: String, version: UInt32)] = [
        (screenFlows.projection.name, screenFlows.projection.version),
        (navigation.projection.name, navigation.projection.version),
    ]

    /// New folds of every projection, one per projection.
    static func makeFolds() -> [any StoreProjectionFold] {
        [ProjectionFold(screenFlows), ProjectionFold(navigation)]
    }
}

/// One projection's fold over a chunk of one store's records: the states the chunk touches,
/// loaded from their stored bytes, changed by the projection's own `apply`, and written back.
protocol StoreProjectionFold: AnyObject {
    /// The projection's name.
    var name: String { get }
    /// The projection's version.
    var version: UInt32 { get }
    /// The last sequence folded (the checkpoint).
    var checkpoint: Int64 { get set }
    /// Why the fold stopped (the projection's `apply` threw), if it did.
    var failure: String? { get set }
    /// The keys of the states `records` past the checkpoint touch.
    func keys(of records: [(sequence: Int64, record: TransitionRecord)]) -> [String]
    /// Loads a key's stored state.
    func load(key: String, state: ByteBuffer) throws
    /// Folds `records` past the checkpoint, in order; stops at the first `apply` that throws
    /// (recorded in ``failure``; the checkpoint stays before that record).
    func fold(_ records: [(sequence: Int64, record: TransitionRecord)])
    /// The states changed since loading: bytes and columns, or `nil` for a deleted state.
    func changedStates() throws -> [(key: String, state: (bytes: [UInt8], columns: StateColumns)?)]
}

/// ``StoreProjectionFold`` of one projection.
final class ProjectionFold<P: Projection>: StoreProjectionFold {
    let projection: ServerProjection<P>
    var checkpoint: Int64 = 0
    var failure: String?
    private var states: [String: P.State] = [:]
    private var changed: [String] = []
    private var changedSet: Set<String> = []

    init(_ projection: ServerProjection<P>) {
        self.projection = projection
    }

    var name: String { projection.projection.name }
    var version: UInt32 { projection.projection.version }

    func keys(of records: [(sequence: Int64, record: TransitionRecord)]) -> [String] {
        var seen = Set<String>()
        var keys: [String] = []
        for (sequence, record) in records where sequence > checkpoint {
            if let key = projection.projection.key(for: record), seen.insert(key).inserted { keys.append(key) }
        }
        return keys
    }

    func load(key: String, state: ByteBuffer) throws {
        states[key] = try projection.decode(state)
    }

    func fold(_ records: [(sequence: Int64, record: TransitionRecord)]) {
        guard failure == nil else { return }
        for (sequence, record) in records where sequence > checkpoint {
            if let key = projection.projection.key(for: record) {
                var state = states[key]
                do {
                    try projection.projection.apply(record, to: &state)
                } catch {
                    failure = "sequence \(sequence) (session \(record.session.rawValue)): \(error)"
                    return
                }
                states[key] = state
                if changedSet.insert(key).inserted { changed.append(key) }
            }
            checkpoint = sequence
        }
    }

    func changedStates() throws -> [(key: String, state: (bytes: [UInt8], columns: StateColumns)?)] {
        try changed.map { key in
            guard let state = states[key] else { return (key, nil) }
            var bytes: [UInt8] = []
            try projection.projection.encode(state, into: &bytes)
            return (key, (bytes, projection.columns(state)))
        }
    }
}
