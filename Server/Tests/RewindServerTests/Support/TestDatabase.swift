import Foundation
import Logging
import PostgresNIO
import RewindServer

/// A database of its own for one test, created in the cluster that `Server/scripts/with-postgres.sh`
/// started (its URL in `REWIND_TEST_DATABASE_URL`).
struct TestDatabase {
    /// The new database's URL.
    let url: DatabaseURL

    struct NoClusterError: Error, CustomStringConvertible {
        var description: String {
            "REWIND_TEST_DATABASE_URL is not set: run the server's tests with `make server-test` (Server/scripts/with-postgres.sh starts a PostgreSQL cluster)"
        }
    }

    /// Creates an empty database with a unique name.
    static func make() async throws -> TestDatabase {
        guard let text = ProcessInfo.processInfo.environment["REWIND_TEST_DATABASE_URL"] else { throw NoClusterError() }
        return try await make(in: try DatabaseURL(text))
    }

    /// Creates an empty database with a unique name in the cluster of `cluster` (a URL of one of
    /// its databases).
    static func make(in cluster: DatabaseURL) async throws -> TestDatabase {
        let name = "rewind_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await RewindServer.withClient(cluster, logger: testLogger) { client in
            // A database name cannot be a bound parameter; this one is made of hex digits here.
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: testLogger)
        }
        return TestDatabase(url: cluster.with(database: name))
    }

    /// Runs `body` with a client of this database.
    func withClient<R: Sendable>(_ body: @Sendable (PostgresClient) async throws -> R) async throws -> R {
        try await RewindServer.withClient(url, logger: testLogger, body)
    }

    /// The number of rows of `table` (a name from this file, never input).
    func count(_ table: StaticString) async throws -> Int {
        try await withClient { client in
            var count = 0
            for try await value in try await client.query(
                PostgresQuery(unsafeSQL: "SELECT count(*)::bigint FROM \(table)")
            )
            .decode(Int64.self) {
                count = Int(value)
            }
            return count
        }
    }

    /// The records stored for `storeID`, by sequence: (sequence, session id, machine, event, bytes).
    func records(store storeID: UUID) async throws -> [(
        sequence: Int64, session: String, machine: String, event: String, bytes: [UInt8]
    )] {
        try await withClient { client in
            var rows: [(sequence: Int64, session: String, machine: String, event: String, bytes: [UInt8])] = []
            for try await (sequence, session, machine, event, bytes) in try await client.query(
                """
                SELECT sequence, session_id, machine, event, record FROM records WHERE store_id = \(storeID) ORDER BY app_id, sequence
                """
            ).decode((Int64, String, String, String, ByteBuffer).self) {
                rows.append((sequence, session, machine, event, Array(buffer: bytes)))
            }
            return rows
        }
    }
}

/// Logs warnings and worse only, so test output stays readable.
let testLogger: Logger = {
    var logger = Logger(label: "rewind-server-tests")
    logger.logLevel = .warning
    return logger
}()
