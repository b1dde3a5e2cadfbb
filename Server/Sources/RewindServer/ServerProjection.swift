import Foundation
import PostgresNIO
@_spi(Internals) import Rewind

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
    /// Every state the session has been in (the screen-flow projection's).
    var reached: [String]? = nil
    /// The session's version: its number of records (the screen-flow projection's).
    var records: Int64? = nil
}

/// A projection the server keeps in PostgreSQL: the root's ``Projection`` itself, folded by the
/// device's own fold driver (``ProjectionChunkFold``) so its states are a device's byte for byte,
/// and how to extract its ``StateColumns``.
struct ServerProjection<P: Projection>: ServerProjecting {
    /// The projection, as a device runs it.
    let projection: P
    /// The columns extracted from a state.
    let columns: @Sendable (P.State) -> StateColumns

    var name: String { projection.name }
    var version: UInt32 { projection.version }

    func makeFold(after checkpoint: Int64) -> ProjectionChunkFold {
        ProjectionChunkFold(projection, after: UInt64(max(checkpoint, 0)))
    }

    /// A state decoded from its stored bytes.
    func decode(_ buffer: ByteBuffer) throws -> P.State {
        try buffer.readableBytesView.withUnsafeBytes { try projection.decode($0) }
    }

    func columns(ofStored bytes: [UInt8]) throws -> StateColumns {
        columns(try bytes.withUnsafeBytes { try projection.decode($0) })
    }
}

/// A ``ServerProjection`` with its projection's type erased.
protocol ServerProjecting: Sendable {
    /// The projection's name.
    var name: String { get }
    /// The projection's version.
    var version: UInt32 { get }
    /// A fold of one chunk of records after `checkpoint`.
    func makeFold(after checkpoint: Int64) -> ProjectionChunkFold
    /// The columns of the state stored as `bytes` (as the fold wrote them).
    func columns(ofStored bytes: [UInt8]) throws -> StateColumns
}

/// The built-in projections the server keeps for every store, in the order they are folded.
enum ServerProjections {
    /// Screen flows: where every session is and every state it reached (funnels, the state filter).
    static let screenFlows = ServerProjection(projection: ScreenFlowProjection()) { flow in
        StateColumns(
            machine: flow.machine, configuration: flow.configuration,
            updatedAtMicroseconds: flow.updated.microsecondsSince1970, depth: nil, reached: flow.reached,
            records: Int64(clamping: flow.version))
    }

    /// Navigation stacks, their entries with the data their screens were entered with. The
    /// records' state data is decoded with the default JSON coder (a device's store's default).
    static let navigation = ServerProjection(projection: NavigationProjection()) { navigation in
        StateColumns(
            machine: navigation.machine, configuration: nil, updatedAtMicroseconds: nil,
            depth: Int32(clamping: navigation.stack.count))
    }

    /// Every projection, in the order they are folded.
    static let projections: [any ServerProjecting] = [screenFlows, navigation]

    /// Every projection's name and version, for status and catch-up.
    static let all: [(name: String, version: UInt32)] = projections.map { ($0.name, $0.version) }
}

/// The projection states of one chunk of a store's records, in the catch-up's transaction: the
/// stored states of the keys the chunk changes, loaded before the fold (it reads them through
/// ``ProjectionStateReading``, synchronously, from memory), and the states the fold wrote (through
/// ``ProjectionStateWriting``), written to `projection_states` after it.
final class ChunkStates: ProjectionStateReading, ProjectionStateWriting {
    /// The stored states loaded, by key.
    private var stored: [String: ByteBuffer] = [:]
    /// The states written, in order (`nil`: deleted).
    private(set) var written: [(key: String, bytes: [UInt8]?)] = []

    /// Adds the stored state of `key`.
    func load(key: String, state: ByteBuffer) {
        stored[key] = state
    }

    func withStoredState<R>(
        of projection: String, key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer?) throws -> R
    ) throws -> R {
        guard let state = stored[String(decoding: key, as: UTF8.self)] else { return try body(nil) }
        return try state.withUnsafeReadableBytes { try body($0) }
    }

    func storeState(_ bytes: [UInt8]?, of projection: String, key: String) throws {
        written.append((key, bytes))
    }
}
