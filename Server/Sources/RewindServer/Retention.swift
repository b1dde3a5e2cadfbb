import Foundation
import Logging
import PostgresNIO
import RewindWire
import ServiceLifecycle

/// The server's retention: every app with a retention period (`apps.retention_seconds`, set by
/// `rewind-server create-app --retention-days` or `set-retention`) loses the sessions whose last
/// record, in every store that holds them, is older than the period. Whole sessions go, through
/// the one deletion function (``Erasure``), a bounded number per transaction, so the projection
/// states stay those of a fold of what is kept (states are per session). Expired sessions get no
/// tombstone (they are not forbidden, only old); their sequences become erased ranges of their
/// stores, so a batch sent again does not bring them back.
public enum Retention {
    /// What a pass removed.
    public struct PassResult: Sendable, Equatable {
        /// Sessions removed.
        public var sessions: Int
        /// Records removed.
        public var records: Int64
        /// Transactions that removed something.
        public var transactions: Int
    }

    /// The default number of sessions removed per transaction.
    public static let defaultSessionsPerTransaction = 500

    /// Removes, for every app with a retention period, the sessions whose last record is older
    /// than `now` minus the period, at most `sessionsPerTransaction` per transaction, until none
    /// is left. Safe beside uploads and other servers (each transaction takes the app's erasure
    /// lock).
    ///
    /// - Throws: PostgreSQL's errors (the transactions committed before stay done).
    @discardableResult
    public static func pass(
        on client: PostgresClient, now: Date, sessionsPerTransaction: Int = defaultSessionsPerTransaction,
        logger: Logger
    ) async throws -> PassResult {
        let limit = Int64(max(sessionsPerTransaction, 1))
        var apps: [(id: Int64, seconds: Int64)] = []
        for app in try await client.rows(
            """
            SELECT id, retention_seconds FROM apps WHERE retention_seconds IS NOT NULL ORDER BY id
            """, logger: logger
        ).decode((Int64, Int64).self) {
            apps.append(app)
        }
        var result = PassResult(sessions: 0, records: 0, transactions: 0)
        let nowMicroseconds = Int64(now.timeIntervalSince1970 * 1_000_000)
        for app in apps {
            let (product, overflow) = app.seconds.multipliedReportingOverflow(by: 1_000_000)
            let cutoff = overflow ? Int64.min : nowMicroseconds - product
            while true {
                let erased = try await client.transaction(logger: logger) { connection -> [ErasedSession] in
                    try await Erasure.lockApp(app.id, exclusive: true, connection: connection, logger: logger)
                    var ids: [String] = []
                    for try await id in try await connection.query(
                        """
                        SELECT s.session_id FROM sessions s
                        WHERE s.app_id = \(app.id) AND s.last_recorded_at_us < \(cutoff)
                            AND NOT EXISTS (SELECT 1 FROM sessions n WHERE n.app_id = s.app_id
                                AND n.session_id = s.session_id AND n.last_recorded_at_us >= \(cutoff))
                        GROUP BY s.session_id ORDER BY s.session_id LIMIT \(limit)
                        """, logger: logger
                    ).decode(String.self) {
                        ids.append(id)
                    }
                    return try await Erasure.eraseSessions(
                        ids, appID: app.id, erasedAt: now, tombstone: nil, connection: connection, logger: logger)
                }
                guard !erased.isEmpty else { break }
                result.sessions += erased.count
                result.records += erased.reduce(0) { $0 + $1.stores.reduce(0) { $0 + $1.records } }
                result.transactions += 1
                if erased.count < Int(limit) { break }
            }
        }
        if result.sessions > 0 {
            logger.info(
                "retention removed sessions",
                metadata: [
                    "sessions": "\(result.sessions)", "records": "\(result.records)",
                    "transactions": "\(result.transactions)",
                ])
        }
        return result
    }
}

/// Runs ``Retention/pass(on:now:sessionsPerTransaction:logger:)`` every `interval` beside the
/// catch-up, until the graceful shutdown (a transaction in progress finishes first).
final class RetentionService: Service, Sendable {
    let database: DatabasePool
    let interval: Duration
    let logger: Logger
    private let starts: AsyncStream<Void>
    private let starter: AsyncStream<Void>.Continuation

    init(database: DatabasePool, interval: Duration, logger: Logger) {
        self.database = database
        self.interval = interval
        self.logger = logger
        (starts, starter) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Lets the passes begin (once the schema is migrated).
    func start() {
        starter.yield()
    }

    func run() async throws {
        var first = starts.cancelOnGracefulShutdown().makeAsyncIterator()
        guard await first.next() != nil else { return }
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await Retention.pass(on: database.client, now: Date(), logger: logger)
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
                logger.error(
                    "retention pass failed; retrying at the next one",
                    metadata: ["error": "\(String(reflecting: error))"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
        }
    }
}
