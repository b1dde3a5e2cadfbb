import Foundation
import PostgresNIO
import Testing

@testable import RewindServer

/// One key's requests never take every connection from the others' (`KeyConcurrency`): a key has
/// at most `requestsPerKey` requests in progress, the rest wait their turn without a connection,
/// and one that waits too long is a 429 with `Retry-After`.
@Suite(.timeLimit(.minutes(10))) struct KeyConcurrencyTests {
    /// Server backends of the test's database waiting on a lock.
    static func lockWaiters(_ database: TestDatabase) async throws -> Int {
        try await database.withClient { client in
            var count = 0
            for try await waiting in try await client.query(
                """
                SELECT count(*)::bigint FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'
                """, logger: testLogger
            ).decode(Int64.self) {
                count = Int(waiting)
            }
            return count
        }
    }

    /// Runs `body` while `projection_states` is locked, so that every listing of sessions (which
    /// joins it) waits inside PostgreSQL, holding its connection, until `body` returns.
    static func whileListingsHang<R: Sendable>(
        _ database: TestDatabase, _ body: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        try await database.withClient { client in
            try await client.withTransaction(logger: testLogger) { connection in
                try await connection.query("LOCK TABLE projection_states IN ACCESS EXCLUSIVE MODE", logger: testLogger)
                return try await body()
            }
        }
    }

    @Test func hugeListingsOfOneKeyLeaveTheConnectionsAnotherKeyNeedsForOneSession() async throws {
        // 4 connections; 2 requests of a key at once, the others waiting as long as it takes
        // (a loaded machine can take more than the default 10 s to get through this test).
        let server = try await TestServer.start {
            $0.maximumDatabaseConnections = 4
            $0.requestsPerKey = 2
            $0.keyWait = .seconds(3600)
        }
        let device = try Device()
        try await device.runOnboarding(["one", "two", "three"])
        try await server.uploadAll(device)
        try await server.waitUntilCaughtUp()
        let other = try await server.database.withClient { client in
            try await KeyRegistry(client: client, logger: testLogger).addKey(kind: .read, toApp: server.app.appID)
        }

        let listings: [Task<Int, any Error>] = try await Self.whileListingsHang(server.database) {
            // Six listings with one key: more than the server has connections.
            let listings = (0..<6).map { _ in
                Task { try await server.request("GET", "/v1/sessions?limit=1000", key: server.app.readKey).status }
            }
            // Two of them reach PostgreSQL and wait there; the other four wait for their turn.
            while try await Self.lockWaiters(server.database) < 2 { try await Task.sleep(for: .milliseconds(20)) }

            // Another key's one-session request is answered while they all wait. Should the key's
            // requests take more than its 2 connections (which would leave this one none), the
            // watcher sees it and the test fails at once.
            // The first of the history's answer and the watcher's finding.
            let (outcomes, report) = AsyncStream.makeStream(of: String?.self)
            let history = Task {
                let response = try await server.request(
                    "GET", "/v1/stores/\(device.storeID)/sessions/two/history", key: other)
                report.yield(response.status == 200 ? nil : "the history answered \(response.status): \(response.text)")
            }
            let watcher = Task {
                while !Task.isCancelled {
                    let waiting = try await Self.lockWaiters(server.database)
                    if waiting > 2 { report.yield("\(waiting) requests of one key reached PostgreSQL") }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            var first = outcomes.makeAsyncIterator()
            let outcome = await first.next() ?? "no outcome"
            watcher.cancel()
            _ = history
            #expect(outcome == nil)
            #expect(try await Self.lockWaiters(server.database) == 2)
            return listings
        }
        // The lock is gone: every listing is answered, in turn.
        for listing in listings { #expect(try await listing.value == 200) }
        try await server.stop()
    }

    @Test func aRequestThatWaitsTooLongForItsKeysTurnIsA429WithRetryAfter() async throws {
        let server = try await TestServer.start {
            $0.requestsPerKey = 1
            $0.keyWait = .milliseconds(200)
        }
        let device = try Device()
        try await device.runOnboarding(["one"])
        try await server.uploadAll(device)
        try await server.waitUntilCaughtUp()

        // Requests that end, answered or refused, give their turn back.
        for _ in 0..<3 {
            let missing = try await server.request(
                "GET", "/v1/stores/\(device.storeID)/sessions/none/history", key: server.app.readKey)
            #expect(missing.status == 404)
        }
        let (listing, refused) = try await Self.whileListingsHang(server.database) {
            let listing = Task { try await server.request("GET", "/v1/sessions", key: server.app.readKey).status }
            while try await Self.lockWaiters(server.database) < 1 { try await Task.sleep(for: .milliseconds(20)) }
            let refused = try await server.request(
                "GET", "/v1/stores/\(device.storeID)/sessions/one/history", key: server.app.readKey)
            return (listing, refused)
        }
        #expect(refused.status == 429)
        #expect(refused.headers["retry-after"] == "1")
        #expect(refused.headers["content-type"] == "application/json")
        #expect(refused.text.contains("\"error\":\"this key has its 1 requests at once in progress"))
        // The listing is answered once the lock is gone, and the key's turn is free again.
        #expect(try await listing.value == 200)
        #expect(try await server.request("GET", "/v1/sessions", key: server.app.readKey).status == 200)
        try await server.stop()
    }

    /// A request cancelled while it waits for its key's turn stops waiting at once, whether the
    /// cancellation comes after its wait was queued or before (then `onCancel` finds no waiter:
    /// the wait must see the cancellation itself). The wait is an hour: a cancelled waiter that
    /// waits it out fails the suite's time limit.
    @Test func aCancelledRequestStopsWaitingForItsKeysTurn() async throws {
        let concurrency = KeyConcurrency(wait: .seconds(3_600))
        #expect(await concurrency.acquire("key", limit: 1))
        // Cancelled before it asks.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await concurrency.acquire("key", limit: 1)
        }
        #expect(await early.value == false)
        // Cancelled while it waits: queued behind the slot held above, then cancelled.
        let (queued, continuation) = AsyncStream.makeStream(of: Void.self)
        let waiting = Task {
            continuation.yield()
            return await concurrency.acquire("key", limit: 1)
        }
        var iterator = queued.makeAsyncIterator()
        _ = await iterator.next()
        waiting.cancel()
        #expect(await waiting.value == false)
        // Neither took the slot: given back, the next request has it at once.
        concurrency.release("key")
        #expect(await concurrency.acquire("key", limit: 1))
        concurrency.release("key")
    }
}
