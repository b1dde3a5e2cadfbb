import Foundation
import Logging
import PostgresNIO
import Rewind
@_spi(Internals) import RewindStore

/// The transition log of one device store of one app, as uploaded to PostgreSQL: what replay
/// and projections read on the server, through the same `TransitionLogReader` interface a
/// device's LMDB store gives them, so they answer as the device would.
///
/// ## Design
/// - **Synchronous over asynchronous.** The reader interface is synchronous; postgres-nio is
///   not. Whoever reads a `PostgresTransitionLog` does so on a thread that may block (the
///   server's routes enter one with `BlockingBridge.run`, a thread of `NIOThreadPool.singleton`);
///   each query is a task the reading thread waits for (`BlockingBridge.wait`). Never read one
///   on an event loop or from the cooperative pool.
/// - **A consistent log per reader.** ``readLog(_:)`` reads the store's head sequence once
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
/// - The existing indexes serve every query: `records`' primary key (app, store, sequence),
///   `records_by_session` (app, store, session, version), `sessions`' and `definitions`' primary
///   keys. No migration is needed.
public struct PostgresTransitionLog: TransitionLog, Sendable {
    /// The database.
    public let client: PostgresClient
    /// The app whose store this is (stores are keyed by app and store id).
    public let appID: Int64
    /// The device store's id (`meta.store-id`).
    public let storeID: UUID
    /// The head every reader of this log is bounded by, when pinned (``pinned()``); `nil`: each
    /// reader reads the head when it begins.
    public let pinnedHead: UInt64?
    let logger: Logger

    /// The log of store `storeID` of app `appID` in `client`'s database.
    public init(client: PostgresClient, appID: Int64, storeID: UUID, logger: Logger) {
        self.init(client: client, appID: appID, storeID: storeID, pinnedHead: nil, logger: logger)
    }

    private init(client: PostgresClient, appID: Int64, storeID: UUID, pinnedHead: UInt64?, logger: Logger) {
        self.client = client
        self.appID = appID
        self.storeID = storeID
        self.pinnedHead = pinnedHead
        self.logger = logger
    }

    /// This log pinned at its head now: every reader of the copy sees the log as it is now, so
    /// several reads (a session's info, then its replay) answer about the same log. Blocks the
    /// calling thread.
    ///
    /// - Throws: PostgreSQL's errors.
    public func pinned() throws -> PostgresTransitionLog {
        PostgresTransitionLog(client: client, appID: appID, storeID: storeID, pinnedHead: try currentHead(), logger: logger)
    }

    /// Calls `body` with a reader of the log as it is now (bounded by the head sequence read
    /// first, or the pinned head) and returns what it returns. Blocks the calling thread (see the type's design).
    ///
    /// - Throws: PostgreSQL's errors, and what `body` throws.
    public func readLog<R>(_ body: (any TransitionLogReader) throws -> R) throws -> R {
        try body(try Reader(log: self))
    }

    /// Runs `body` with a reader of the log (as ``readLog(_:)``) on a thread of NIO's
    /// blocking-I/O pool, so async code (a route, a test) never blocks its own thread.
    ///
    /// - Throws: PostgreSQL's errors, and what `body` throws.
    public func read<R: Sendable>(_ body: @escaping @Sendable (any TransitionLogReader) throws -> R) async throws -> R {
        try await BlockingBridge.run { try readLog(body) }
    }

    /// The store's head sequence now: the last sequence the server holds (0 for a store it does
    /// not hold).
    func currentHead() throws -> UInt64 {
        let (client, appID, storeID, logger) = (client, appID, storeID, logger)
        return try BlockingBridge.wait {
            for try await next in try await client.query("""
                SELECT next_sequence FROM stores WHERE app_id = \(appID) AND store_id = \(storeID)
                """, logger: logger).decode(Int64.self) {
                return UInt64(max(next - 1, 0))
            }
            return 0
        }
    }
}

/// A damaged row of the server's copy of a log: what and where, and why it cannot be read.
public enum PostgresLogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The record stored for `sequence` of `storeID` does not decode (checksum, format, fields) or
    /// is not the session and version its row says.
    case damagedRecord(storeID: UUID, sequence: UInt64, reason: String)
    /// The stored definition `name`@`version` is not a readable machine definition document.
    case damagedDefinition(name: String, version: String, reason: String)

    /// Describes the error.
    public var description: String {
        switch self {
        case .damagedRecord(let storeID, let sequence, let reason):
            "the server's record \(sequence) of store \(storeID) is damaged: \(reason)"
        case .damagedDefinition(let name, let version, let reason):
            "the server's definition \(name)@\(version) is damaged: \(reason)"
        }
    }
}
