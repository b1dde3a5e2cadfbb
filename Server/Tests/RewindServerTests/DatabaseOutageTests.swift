import Foundation
import Rewind
import RewindServer
import RewindSync
import Synchronization
import Testing

/// PostgreSQL stopped and started under a running server (a cluster of the test's own, so the
/// other suites' cluster is never stopped): while it is down `/health` and every request are
/// answered at once with a JSON 503 and `Retry-After`; once it is back the same server serves
/// again, and an uploader that ran through the outage loses nothing the server acknowledged.
/// The tests wait on the server's availability events, never on a clock; the bounds come from
/// the configuration, and the times are printed (see Server/README.md, "Errors and outages").
@Suite(.timeLimit(.minutes(10))) struct DatabaseOutageTests {
    /// The promised bounds follow from the default configuration: unavailable within 7 s of the
    /// database going silent (a probe's interval, then three misses of 2 s on fresh connections:
    /// a busy machine's one slow statement is no outage), serving within 1 s of its return (the
    /// interval of connection attempts while it is down), a `Retry-After` of 1 s.
    @Test func theDefaultOutagePolicyKeepsThePromisedBounds() throws {
        let policy = ServerConfiguration(database: try DatabaseURL("postgres://u@127.0.0.1/d")).outages
        #expect(policy.probeAttempts > 1)
        #expect(policy.silenceLimit == policy.probeTimeout * policy.probeAttempts)
        #expect(
            policy.probeInterval + policy.silenceLimit + policy.reconnectInterval * policy.probeAttempts <= .seconds(7))
        #expect(policy.reconnectInterval < .seconds(1))
        #expect(policy.retryAfterSeconds == 1)
        #expect(OutagePolicy(retryAfter: .milliseconds(1500)).retryAfterSeconds == 2)
        #expect(OutagePolicy(retryAfter: .zero).retryAfterSeconds == 1)
        #expect(OutagePolicy(probeAttempts: 0).probeAttempts == 1)
    }

    @Test func whilePostgreSQLIsDownRequestsAre503sAndTheServerServesAgainWhenItIsBack() async throws {
        let cluster = try await PrivateCluster.start()
        let database = try await TestDatabase.make(in: try cluster.url)
        let server = try await TestServer.start(database: database)
        var statuses = server.databaseStatus.makeAsyncIterator()
        let device = try Device()
        try await device.writeSessions(100, prefix: "before")
        let uploader = Uploader.forTest(device, port: server.port, key: server.app.ingestKey.token, batchRecords: 50)
        await uploader.start()
        try await uploader.waitUntilUploaded(through: try device.head, deadline: .seconds(180))
        let acknowledged = uploader.progress.acknowledgedThrough
        #expect(try await server.request("GET", "/health").status == 200)

        // PostgreSQL goes away at once (every connection dropped) while the device keeps writing.
        let stopping = ContinuousClock.now
        try await cluster.stopImmediately()
        let stopped = ContinuousClock.now
        let status1 = await statuses.next()
        #expect(status1 == .unavailable)
        let detected = ContinuousClock.now
        try await device.writeSessions(50, prefix: "during")

        let health = try await server.request("GET", "/health")
        try expectUnavailable(health, "/health")
        let position = try await server.request(
            "GET", "/v1/stores/\(device.storeID.uuidString)/position", key: server.app.readKey)
        try expectUnavailable(position, "position")
        let upload = try await server.upload(try device.batch(from: 1, limit: 10), store: device.storeID)
        try expectUnavailable(upload, "upload")
        let sessions = try await server.request("GET", "/v1/sessions", key: server.app.readKey)
        try expectUnavailable(sessions, "sessions")
        // The uploader meets 503s, which it retries.
        try await uploader.wait { $0.failures >= 2 }

        // Back: the same server (never restarted) serves again.
        let starting = ContinuousClock.now
        try await cluster.start()
        let started = ContinuousClock.now
        let status2 = await statuses.next()
        #expect(status2 == .available)
        let serving = ContinuousClock.now
        let healthy = try await server.request("GET", "/health")
        #expect(healthy.status == 200, "\(healthy.text)")
        let answered = ContinuousClock.now
        #expect(
            try await server.request("GET", "/v1/stores/\(device.storeID.uuidString)/position", key: server.app.readKey)
                .status == 200)

        // Nothing acknowledged before the outage is lost, and what was written during it arrives.
        let head = try device.head
        try await uploader.waitUntilUploaded(through: head, deadline: .seconds(180))
        #expect(uploader.progress.acknowledgedThrough >= acknowledged)
        try await database.expectHoldsPrefix(of: device, count: Int(head))
        await uploader.stop()
        print(
            """
            outage measured: pg_ctl stop -m immediate took \(stopped - stopping); unavailable \(detected - stopping) after \
            it began (\(detected - stopped) after pg_ctl returned); pg_ctl start took \(started - starting); available \
            \(serving - started) after pg_ctl start returned, /health 200 \(answered - started) after it
            """)
        try await withDeadline(.seconds(60), { "graceful shutdown of the server" }) { try await server.stop() }
        await cluster.remove()
    }

    /// `pg_ctl -m immediate restart` while batches are being stored: every answer the uploader
    /// gets is JSON (a 503 with `Retry-After` for what the restart interrupted, never a bodiless
    /// 500), and the store converges.
    @Test func aRestartMidUploadAnswersJSON() async throws {
        let cluster = try await PrivateCluster.start()
        let database = try await TestDatabase.make(in: try cluster.url)
        let server = try await TestServer.start(database: database)
        var statuses = server.databaseStatus.makeAsyncIterator()
        let device = try Device()
        try await device.writeSessions(300, prefix: "mid")
        // Raw uploads of one batch again and again (each stored once, then acknowledged), while
        // PostgreSQL restarts underneath.
        let batch = try device.batch(from: 1, limit: 200)
        // Stopped by a flag, not by cancelling: a cancelled exchange is cut (RawHTTP), and every
        // answer must be whole.
        let stopping = StopFlag()
        let uploads = Task {
            var answers: [HTTPTestResponse] = []
            while !stopping.isSet {
                answers.append(try await server.upload(batch, store: device.storeID))
            }
            return answers
        }
        try await cluster.restart()
        let status3 = await statuses.next()
        #expect(status3 == .unavailable)
        let status4 = await statuses.next()
        #expect(status4 == .available)
        // One more upload once serving again, then stop.
        #expect(try await server.upload(batch, store: device.storeID).status == 200)
        stopping.set()
        let answers = try await uploads.value
        for answer in answers where answer.status != 200 {
            #expect(answer.status == 503, "\(answer.status): \(answer.text)")
            #expect(answer.headers["content-type"] == "application/json")
            #expect(try answer.object()["error"] is String, "\(answer.text)")
            #expect(answer.headers["retry-after"] == "1")
        }
        try await database.expectHoldsPrefix(of: device, count: 200)
        try await withDeadline(.seconds(60), { "graceful shutdown of the server" }) { try await server.stop() }
        await cluster.remove()
    }

    private func expectUnavailable(
        _ response: HTTPTestResponse, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(response.status == 503, "\(what): \(response.status) \(response.text)", sourceLocation: sourceLocation)
        #expect(response.headers["content-type"] == "application/json", "\(what)", sourceLocation: sourceLocation)
        #expect(response.headers["retry-after"] == "1", "\(what)", sourceLocation: sourceLocation)
        let body = try response.object()
        #expect(
            (body["error"] as? String)?.contains("database") == true, "\(what): \(response.text)",
            sourceLocation: sourceLocation)
        #expect(body["retryAfter"] as? Int == 1, "\(what)", sourceLocation: sourceLocation)
    }
}

/// A flag one task sets and another reads.
private final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
