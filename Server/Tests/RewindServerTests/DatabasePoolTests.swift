import Foundation
import PostgresNIO
import Testing

@testable import RewindServer

/// Work in flight on the server's connection pool when the pool is replaced (at each change of the
/// database's availability, see `DatabasePool`): it fails with `DatabasePoolReplaced`, never hangs
/// and never surfaces postgres-nio's `poolShutdown`; the start-up migrations survive a real
/// PostgreSQL stopped and started under them. Waits on events (a lock, the pool's runs, the
/// server listening), bounded by the suite's limit.
@Suite(.timeLimit(.minutes(10))) struct DatabasePoolTests {
    @Test func aTransactionOnAReplacedPoolFailsAsReplacedAndTheFreshPoolServes() async throws {
        let database = try await TestDatabase.make()
        let configuration = ServerConfiguration(database: database.url, logLevel: .warning)
        let pool = DatabasePool(configuration: configuration, logger: testLogger) { _ in }
        let lockKey: Int64 = 0x5465_7374_0000_0032
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            await pool.running()
            let old = pool.client
            try await database.withClient { client in
                try await client.withConnection { holder in
                    // Another session holds the lock the work waits for: it cannot end by itself.
                    try await holder.query("SELECT pg_advisory_lock(\(lockKey))", logger: testLogger)
                    let (began, beginning) = AsyncStream.makeStream(of: Void.self)
                    let work = Task {
                        try await pool.withClient { client in
                            try await client.transaction(logger: testLogger) { connection in
                                beginning.yield()
                                try await connection.query(
                                    "SELECT pg_advisory_xact_lock(\(lockKey))", logger: testLogger)
                            }
                        }
                    }
                    for await _ in began { break }
                    await pool.replaceClient()
                    let outcome = await work.result
                    guard case .failure(let error) = outcome else {
                        Issue.record("the work on the replaced pool succeeded while the lock was held elsewhere")
                        return
                    }
                    #expect(error is DatabasePoolReplaced, "\(String(reflecting: error))")
                    #expect(isDatabaseOutage(error))
                    #expect(pool.client !== old)
                    // The fresh pool serves at once (the lock is still held: a statement of another kind).
                    let answer = try await pool.withClient { client in
                        var values: [Int] = []
                        for try await value in try await client.query("SELECT 32", logger: testLogger).decode(Int.self)
                        {
                            values.append(value)
                        }
                        return values
                    }
                    #expect(answer == [32])
                    try await holder.query("SELECT pg_advisory_unlock(\(lockKey))", logger: testLogger)
                }
            }
            group.cancelAll()
        }
    }

    @Test func theStartUpMigrationsSurvivePostgreSQLStoppedAndStartedUnderThem() async throws {
        let cluster = try await PrivateCluster.start()
        let database = try await TestDatabase.make(in: try cluster.url)
        // A session of the test's holds the migrations' lock, so they wait inside their
        // transaction; PostgreSQL then stops (every connection dropped) and starts again.
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let (locked, lock) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try? await database.withClient { client in
                try await client.withConnection { connection in
                    try await connection.query("SELECT pg_advisory_lock(\(Migrations.lockKey))", logger: testLogger)
                    lock.yield()
                    // Until the migrations wait for the lock (PostgreSQL's own view of them).
                    while try await waitingForAdvisoryLocks(on: connection) == 0 {}
                    lock.yield()
                    for await _ in released { break }
                }
            }
        }
        var lockEvents = locked.makeAsyncIterator()
        _ = await lockEvents.next()
        let starting = Task { try await TestServer.start(database: database) }
        _ = await lockEvents.next()
        try await cluster.stopImmediately()
        release.yield()
        await holder.value
        try await cluster.start()
        let server = try await starting.value
        #expect(try await server.request("GET", "/health").status == 200)
        let applied = try await database.count("schema_migrations")
        #expect(applied == Migrations.all.count)
        try await withDeadline(.seconds(60), { "graceful shutdown of the server" }) { try await server.stop() }
        await cluster.remove()
    }
}

/// The sessions of the database waiting for an advisory lock now.
private func waitingForAdvisoryLocks(on connection: PostgresConnection) async throws -> Int {
    var count = 0
    for try await value in try await connection.query(
        "SELECT count(*)::bigint FROM pg_locks WHERE locktype = 'advisory' AND NOT granted", logger: testLogger
    ).decode(Int64.self) {
        count = Int(value)
    }
    return count
}
