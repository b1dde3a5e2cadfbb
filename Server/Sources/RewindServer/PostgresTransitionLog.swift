import Foundation
import Logging
import PostgresNIO
import Rewind
@_spi(Internals) import RewindStore

/// The transition log of one device store of one app, as uploaded to PostgreSQL: what replay
/// and projections read on the server, through the asynchronous form of the log-reading
/// interface (``AsyncTransitionLogReader``), so they answer as the device would and no thread
/// ever waits on a query.
///
/// ## Design
/// - **Loaded, then replayed.** Replay is synchronous and folds records in memory; a route loads
///   what it replays first (``SessionLog/load(_:from:)``: a session's head, its records and the
///   definitions they name, with awaits on postgres-nio) and replays that in memory. Nothing
///   blocks a thread: the event loops and the cooperative pool only ever await.
/// - **A consistent log per reader.** ``reader()`` reads the store's head sequence once
///   (`stores.next_sequence - 1`) and gives a ``Reader`` bounded by it: every query of that
///   reader asks for `sequence <= head` only. Ingestion appends a store's records in sequence
///   order and commits a batch (records, session heads, next sequence) in one transaction, so the
///   rows at or below the head never change: the reader sees the log as it was when it began,
///   across several queries on any connections, without holding a transaction open. A session
///   head newer than the bound is recomputed from the records under it.
/// - **Records are checked again.** Each row's bytes are decoded with the device's own
///   `RecordCodec` (checksum, format, fields) under the row's sequence, and the decoded session
///   and version must be the row's: a damaged row is a ``PostgresLogError``, never a crash and
///   never another record's data.
/// - **Trimmed sessions begin at their base.** A session whose history begins after version 1
///   has its first version as ``SessionInfo/baseVersion`` and the state there as its base
///   (`sessions.base_snapshot`, see ``SessionBases``), which ``SessionLog/load(_:from:)`` replays
///   from; one without a base is not found (its replay answers 410).
/// - The existing indexes serve every query: `records`' primary key (app, store, sequence),
///   `records_by_session` (app, store, session, version), `sessions`' and `definitions`' primary
///   keys.
public struct PostgresTransitionLog: Sendable {
    /// The database.
    public let client: PostgresClient
    /// The app whose store this is (stores are keyed by app and store id).
    public let appID: Int64
    /// The device store's id (`meta.store-id`).
    public let storeID: UUID
    let logger: Logger

    /// The log of store `storeID` of app `appID` in `client`'s database.
    public init(client: PostgresClient, appID: Int64, storeID: UUID, logger: Logger) {
        self.client = client
        self.appID = appID
        self.storeID = storeID
        self.logger = logger
    }

    /// A reader of the log as it is now: bounded by the head sequence read first.
    ///
    /// - Throws: PostgreSQL's errors.
    public func reader() async throws -> Reader {
        Reader(log: self, head: try await currentHead())
    }

    /// The session `session` loaded from the log as it is now, to replay in memory, or `nil`
    /// when the log holds no record of it.
    ///
    /// - Throws: PostgreSQL's errors, ``PostgresLogError``, ``ReplayError/incompleteSession(_:reason:)``.
    public func session(_ session: SessionID) async throws -> SessionLog? {
        try await SessionLog.load(session, from: try await reader())
    }

    /// The store's head sequence now: the last sequence the server holds (0 for a store it does
    /// not hold).
    func currentHead() async throws -> UInt64 {
        for next in try await client.rows(
            """
            SELECT next_sequence FROM stores WHERE app_id = \(appID) AND store_id = \(storeID)
            """, logger: logger
        ).decode(Int64.self) {
            return UInt64(max(next - 1, 0))
        }
        return 0
    }
}

/// A damaged row of the server's copy of a log: what and where, and why it cannot be read.
public enum PostgresLogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The record stored for `sequence` of `storeID` does not decode (checksum, format, fields) or
    /// is not the session and version its row says.
    case damagedRecord(storeID: UUID, sequence: UInt64, reason: String)
    /// The base stored for trimmed session `session` of `storeID` does not decode.
    case damagedBase(storeID: UUID, session: String, reason: String)

    /// Describes the error.
    public var description: String {
        switch self {
        case .damagedRecord(let storeID, let sequence, let reason):
            "the server's record \(sequence) of store \(storeID) is damaged: \(reason)"
        case .damagedBase(let storeID, let session, let reason):
            "the server's base of session '\(session)' of store \(storeID) is damaged: \(reason)"
        }
    }
}
