import Foundation
import PostgresNIO
import Testing

@testable import RewindServer

/// The server's statements on a leased connection (`withLiveConnection`, `rows`): a wait on a
/// connection that PostgreSQL closes ends at once as `DatabaseConnectionLost`, whatever the wait
/// (postgres-nio 1.33 never answers a statement written to a closed channel), and `rows` reads
/// every row in order. Waits on events, bounded by the suite's limit.
@Suite(.timeLimit(.minutes(1))) struct LiveConnectionTests {
    @Test func aWaitOnAConnectionPostgreSQLClosesEndsAsConnectionLost() async throws {
        let database = try await TestDatabase.make()
        try await database.withClient { client in
            let (backends, backend) = AsyncStream.makeStream(of: Int32.self)
            // What the leased connection waits on: never answered until the test ends, as a
            // statement postgres-nio dropped never is.
            let (unanswered, answer) = AsyncStream.makeStream(of: Void.self)
            defer { answer.finish() }
            let work = Task {
                try await client.withLiveConnection { connection in
                    let rows = try await connection.query("SELECT pg_backend_pid()", logger: testLogger).collect()
                    for pid in try rows.decode(Int32.self) { backend.yield(pid) }
                    for await _ in unanswered {}
                    return "answered"
                }
            }
            var pid: Int32 = 0
            for await next in backends {
                pid = next
                break
            }
            let terminated = try await client.rows("SELECT pg_terminate_backend(\(pid))", logger: testLogger)
                .decode(Bool.self)
            #expect(terminated == [true])
            let outcome = await work.result
            guard case .failure(let error) = outcome else {
                Issue.record("the wait outlived its connection: \(outcome)")
                return
            }
            #expect(error is DatabaseConnectionLost, "\(String(reflecting: error))")
            #expect(isDatabaseOutage(error))
        }
    }

    @Test func rowsReadsEveryRowInOrder() async throws {
        let database = try await TestDatabase.make()
        try await database.withClient { client in
            let rows = try await client.rows(
                "SELECT g, 'row ' || g FROM generate_series(1, \(Int64(3))) AS g ORDER BY g DESC", logger: testLogger)
            let pairs = try rows.decode((Int64, String).self)
            #expect(pairs.map(\.0) == [3, 2, 1])
            #expect(pairs.map(\.1) == ["row 3", "row 2", "row 1"])
            #expect(try rows.decode(Int64.self) == [3, 2, 1])
            #expect(try await client.rows("SELECT 1 WHERE false", logger: testLogger).isEmpty)
            // A cell of another type is the decoder's error, not a crash.
            #expect(throws: PostgresDecodingError.self) { try rows.decode(Bool.self) }
        }
    }
}
