import Foundation
import PostgresNIO
import Rewind
import RewindExamples
import RewindServer
@_spi(Internals) import RewindStore
import RewindWire
import Synchronization
import Testing

/// `GET /v1/stores/{store}/sessions`: pages of the device's own listings with a total, one query
/// per page, and no listing can hold up another request (no thread waits on PostgreSQL).
@Suite(.timeLimit(.minutes(10))) struct StoreSessionListingTests {
    /// The body of a page.
    struct Page: Decodable {
        var sessions: [SessionListing]
        var total: Int
        var next: String?
    }

    static func path(_ device: Device, limit: Int? = nil, after: String? = nil) -> String {
        var query: [String] = []
        if let limit { query.append("limit=\(limit)") }
        if let after {
            query.append("after=\(after.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? after)")
        }
        return "/v1/stores/\(device.storeID.uuidString)/sessions"
            + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// Uploads `device`'s log, then `count` one-record sessions `big-0`… after it: copies of its
    /// first record under other ids (the server checks them as any upload).
    static func uploadSessions(_ count: Int, of device: Device, to server: TestServer) async throws {
        let base = try device.batch()
        #expect(try await server.upload(base, store: device.storeID).status == 200)
        guard count > 0 else { return }
        let template = try #require(try device.records().first)
        var sequence = base.firstSequence + UInt64(base.records.count)
        for start in stride(from: 0, to: count, by: 5_000) {
            let records = try (start..<min(count, start + 5_000)).map { index in
                var record = template
                record.session = try SessionID("big-\(index)")
                record.sequence = sequence + UInt64(index - start)
                return RecordCodec.encode(record)
            }
            let batch = IngestionBatch(firstSequence: sequence, records: records, definitions: base.definitions)
            let response = try await server.upload(batch, store: device.storeID)
            #expect(response.status == 200, "\(response.text)")
            sequence += UInt64(records.count)
        }
    }

    @Test func pagesListEverySessionAsTheDeviceDoesWithATotal() async throws {
        let server = try await TestServer.start()
        let device = try Device.withExamples()
        try await device.runVariety()
        try await Self.uploadSessions(0, of: device, to: server)
        let expected = try device.sessionIDs().sorted { $0.rawValue < $1.rawValue }.map { session in
            try #require(try device.engine.store.read { try SessionListing.read(session, from: $0) })
        }
        #expect(expected.count >= 5)
        // Pages of 2, following `next`, give the device's listings in id order.
        var listed: [SessionListing] = []
        var after: String?
        var pages = 0
        repeat {
            let response = try await server.request(
                "GET", Self.path(device, limit: 2, after: after), key: server.app.readKey)
            #expect(response.status == 200, "\(response.text)")
            let page = try response.json(Page.self)
            #expect(page.total == expected.count)
            #expect(page.sessions.count <= 2)
            listed += page.sessions
            after = page.next
            pages += 1
        } while after != nil && pages < 100
        #expect(listed == expected)
        #expect(pages == (expected.count + 1) / 2)
        // Without a limit: one page of them all; past the last: none, with the total.
        let all = try await server.request("GET", Self.path(device), key: server.app.readKey).json(Page.self)
        #expect(all.sessions == expected && all.next == nil)
        let past = try await server.request("GET", Self.path(device, after: "zzzz"), key: server.app.readKey).json(
            Page.self)
        #expect(past.sessions.isEmpty && past.total == expected.count && past.next == nil)
        // Limits out of range (a page holds at most 1,000) are a 400 naming the parameter.
        for limit in [0, 1_001] {
            let refused = try await server.request("GET", Self.path(device, limit: limit), key: server.app.readKey)
            #expect(refused.status == 400)
            #expect(try refused.object()["parameter"] as? String == "limit")
        }
        try await server.stop()
    }

    /// 20,000 sessions listed page after page by several clients at once, and a one-session
    /// request sent while their queries run (seen in `pg_stat_activity`): it is answered before
    /// the listings end. (With replay reads parked on a thread pool of two, as before, it waited
    /// behind them.)
    @Test func aHugeListingDoesNotDelayAOneSessionRequest() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["small"])
        try await Self.uploadSessions(20_000, of: device, to: server)
        // Statistics of the bulk-loaded tables, as autovacuum gathers them within a minute on a
        // live server (without any, PostgreSQL plans the page's joins as if the tables were empty).
        try await server.database.withClient { client in
            _ = try await client.query("ANALYZE sessions, records", logger: testLogger)
        }
        let first = try await server.request("GET", Self.path(device, limit: 1), key: server.app.readKey).json(
            Page.self)
        #expect(first.total == 20_001)

        let listingsDone = Counter()
        let readKey = server.app.readKey
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var after: String?
                    var count = 0
                    repeat {
                        let page = try await server.request("GET", Self.path(device, after: after), key: readKey).json(
                            Page.self)
                        count += page.sessions.count
                        after = page.next
                    } while after != nil
                    #expect(count == 20_001)
                    listingsDone.increment()
                }
            }
            // The listings' queries are running in PostgreSQL. (A listing that ends first means the
            // wait never saw one: the one-session request would race the other listings' ends.)
            let seen = try await server.database.withClient { client in
                while listingsDone.value == 0 {
                    if try await Self.runningListings(client) > 0 { return true }
                    await Task.yield()
                }
                return false
            }
            #expect(seen, "no listing query was seen running: does runningListings match the listing's SQL?")
            let history = try await server.request(
                "GET", "/v1/stores/\(device.storeID.uuidString)/sessions/small/history", key: readKey)
            #expect(history.status == 200, "\(history.text)")
            #expect(listingsDone.value < 4, "the one-session request was answered only after every listing")
            try await group.waitForAll()
        }
        #expect(listingsDone.value == 4)
        try await server.stop()
    }

    /// How many listing queries PostgreSQL is running now.
    static func runningListings(_ client: PostgresClient) async throws -> Int {
        for try await count in try await client.query(
            """
            SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%s.first_recorded_at_us, s.last_recorded_at_us%'
                AND pid <> pg_backend_pid()
            """, logger: testLogger
        ).decode(Int64.self) {
            return Int(count)
        }
        return 0
    }

    /// A count shared by tasks.
    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func increment() { count.withLock { $0 += 1 } }
    }
}
