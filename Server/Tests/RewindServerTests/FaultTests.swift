import Foundation
import Rewind
import RewindExamples
import RewindServer
@_spi(Internals) import RewindStore
import RewindSync
import RewindWire
import Testing

/// Faults between devices and the server: the server killed mid-batch, PostgreSQL restarted
/// mid-ingestion, connections dropped mid-body or before the answer, old batches sent again,
/// batches out of order, truncated, tampered and oversized bodies, unknown and wrong-kind keys.
/// Each checks the server's copy against the device's own log (nothing lost, nothing duplicated,
/// nothing half-stored) and that the uploader converges once the fault is gone, waiting on its
/// progress, never on a fixed sleep.
@Suite(.timeLimit(.minutes(10))) struct FaultTests {
    @Test func killingTheServerMidBatchLosesAndDuplicatesNothing() async throws {
        let database = try await TestDatabase.make()
        let server = try await ServerProcess.start(database: database)  // migrates the database
        // Killed at the end too, when a step throws before the kill mid-batch (`kill9` does
        // nothing to a server that has ended).
        try await server.killing {
            let app = try await database.withClient { client in
                try await KeyRegistry(client: client, logger: testLogger).createApp(named: "kill-9")
            }
            let proxy = try TCPProxy(upstreamPort: server.port)
            defer { proxy.close() }
            let device = try Device()
            try await device.writeSessions(500, prefix: "kill")
            let head = try device.head
            let uploader = Uploader.forTest(device, port: proxy.port, key: app.ingestKey.token, batchRecords: 600)
            let fullBatch = try device.batch(from: 1, limit: 600).encoded().count
            await uploader.start()
            // Kill the server once half of the second batch's body has passed the proxy.
            var forwarded = proxy.forwarded.makeAsyncIterator()
            while let total = await forwarded.next(), total < fullBatch + fullBatch / 2 {}
            await server.kill9()
            let held = try await database.expectHoldsPrefix(of: device)
            #expect(held % 600 == 0, "whole batches only: \(held)")
            // Uploads fail while it is down...
            try await uploader.wait { $0.failures >= 2 }
            try await database.expectHoldsPrefix(of: device, count: held)
            // ...and converge once a server runs again (on another port, behind the same proxy).
            let second = try await ServerProcess.start(database: database)
            // Then SIGKILL, whatever happened: its end is bounded by the kernel, not by a graceful
            // shutdown (nothing is checked after).
            try await second.killing {
                proxy.upstreamPort = second.port
                try await uploader.waitUntilUploaded(through: head, deadline: .seconds(180))
                try await database.expectHoldsPrefix(of: device, count: Int(head))
                try await withDeadline(.seconds(60), { "end of the uploader's stop" }) { await uploader.stop() }
            }
        }
    }

    /// PostgreSQL stopped at once (`-m immediate`: every transaction aborted, every connection
    /// dropped) and started again while batches are stored and projections folded: the server
    /// answers the batches in flight with errors (the uploader retries them), its connection pool
    /// reconnects, and its graceful shutdown does not wait for statements on dropped connections.
    @Test func postgresRestartedMidIngestionLosesAndDuplicatesNothing() async throws {
        let cluster = try await PrivateCluster.start()
        let database = try await TestDatabase.make(in: try cluster.url)
        let server = try await TestServer.start(database: database)
        let device = try Device()
        try await device.writeSessions(400, prefix: "pg")
        let uploader = Uploader.forTest(device, port: server.port, key: server.app.ingestKey.token, batchRecords: 100)
        await uploader.start()
        try await uploader.wait { $0.batchesUploaded >= 2 }
        // PostgreSQL goes down at once (every transaction aborted) while batches keep coming,
        // and while the device keeps writing.
        let writing = Task { try await device.writeSessions(100, prefix: "during") }
        try await withDeadline(.seconds(120), { "end of PostgreSQL's restart" }) { try await cluster.restart() }
        try await withDeadline(.seconds(120), { "end of the device's writes" }) { try await writing.value }
        let head = try device.head
        try await uploader.waitUntilUploaded(through: head, deadline: .seconds(180))
        try await database.expectHoldsPrefix(of: device, count: Int(head))
        try await withDeadline(.seconds(60), { "end of the uploader's stop" }) { await uploader.stop() }
        try await withDeadline(.seconds(60), { "graceful shutdown of the server" }) { try await server.stop() }
        await cluster.remove()
    }

    /// Connections cut mid-body, then answers lost after the server stored the batch. On Linux,
    /// `URLSession` (libcurl) sent a request again by itself when a kept-alive connection died
    /// before any answer, and sent that copy's head without its body: that request only ended at
    /// the uploader's request timeout. RewindSync's own libcurl transport sends the whole body
    /// again; the test's uploader keeps a short timeout all the same.
    @Test func droppedConnectionsMidBodyAndLostAnswers() async throws {
        let server = try await TestServer.start()
        let proxy = try TCPProxy(upstreamPort: server.port)
        defer { proxy.close() }
        let device = try Device()
        try await device.writeSessions(100, prefix: "drop")
        // Every request is cut after its first 2,000 bytes: bodies never arrive whole.
        proxy.mode = .cutAfter(bytes: 2000)
        let uploader = Uploader.forTest(
            device, port: proxy.port, key: server.app.ingestKey.token, batchRecords: 50, requestTimeout: .seconds(3))
        await uploader.start()
        let failing = try await uploader.wait { $0.failures >= 3 }
        guard case .network = failing.lastError else {
            Issue.record("a dropped connection is a network error: \(String(describing: failing.lastError))")
            return
        }
        #expect(proxy.counts.cuts >= 3)
        try await server.database.expectHoldsPrefix(of: device, count: 0)
        // Answers lost after the server stored the batch: the uploader asks the server's position
        // and goes on from there (a batch sent again would be acknowledged, not stored twice).
        proxy.mode = .dropAnswersToPosts
        try await uploader.wait { $0.failures >= 6 }
        let stored = try await server.database.expectHoldsPrefix(of: device)
        #expect(stored > 0, "the server stored batches whose answers were lost")
        proxy.mode = .pass
        let head = try device.head
        try await uploader.waitUntilUploaded(through: head, deadline: .seconds(180))
        #expect(uploader.progress.acknowledgedThrough == head)
        try await server.database.expectHoldsPrefix(of: device, count: Int(head))
        await uploader.stop()
        try await server.stop()
    }

    @Test func oldBatchesSentAgainAndBatchesOutOfOrder() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.writeSessions(20, prefix: "order")
        let uploader = Uploader.forTest(device, port: server.port, key: server.app.ingestKey.token, batchRecords: 25)
        await uploader.start()
        try await uploader.waitUntilUploaded(through: 80)
        await uploader.stop()
        // An old batch sent again: acknowledged, nothing stored twice.
        let old = try await server.upload(try device.batch(from: 26, limit: 25), store: device.storeID)
        #expect(old.status == 200)
        #expect(
            try old.json(IngestionResult.self)
                == IngestionResult(storeID: device.storeID, nextSequence: 81, stored: 0, alreadyHeld: 25))
        // A batch past the server's end: 409 with where to continue, nothing stored.
        try await device.writeSessions(10, prefix: "later")
        let ahead = try await server.upload(try device.batch(from: 101, limit: 10), store: device.storeID)
        #expect(ahead.status == 409)
        #expect(try ahead.object()["nextSequence"] as? Int == 81)
        // A batch that overlaps the end and starts inside a batch the server holds: the held part
        // acknowledged, the rest stored.
        let overlapping = try await server.upload(try device.batch(from: 71, limit: 20), store: device.storeID)
        #expect(
            try overlapping.json(IngestionResult.self)
                == IngestionResult(storeID: device.storeID, nextSequence: 91, stored: 10, alreadyHeld: 10))
        try await server.database.expectHoldsPrefix(of: device, count: 90)
        // The uploader, restarted, continues from the server's position.
        await uploader.start()
        try await uploader.waitUntilUploaded(through: 120)
        try await server.database.expectHoldsPrefix(of: device, count: 120)
        // It resumed from its own acknowledged position (81): the 10 records the raw upload
        // stored behind its back (81–90) were acknowledged, not stored twice, and it stored the
        // 30 after them (91–120).
        #expect(uploader.progress.recordsUploaded == 80 + 30)
        #expect(uploader.progress.recordsAlreadyHeld == 10)
        await uploader.stop()
        try await server.stop()
    }

    @Test func anUploaderFollowsAServerThatFellBehindWhileItRan() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.writeSessions(10, prefix: "a")
        let uploader = Uploader.forTest(device, port: server.port, key: server.app.ingestKey.token, batchRecords: 15)
        await uploader.start()
        try await uploader.waitUntilUploaded(through: 40)
        // The server's copy goes back to sequence 20 (as a database restored from a backup):
        // sessions a-5…a-9 (sequences 21…40) are gone.
        try await server.database.withClient { client in
            let store = device.storeID
            try await client.query(
                "DELETE FROM records WHERE store_id = \(store) AND sequence > 20", logger: testLogger)
            try await client.query(
                "DELETE FROM sessions WHERE store_id = \(store) AND head_sequence > 20", logger: testLogger)
            try await client.query("UPDATE stores SET next_sequence = 21 WHERE store_id = \(store)", logger: testLogger)
        }
        try await server.database.expectHoldsPrefix(of: device, count: 20)
        // The uploader's next batch starts at 41, past the server's end: the 409 names 21, and
        // it sends everything from there.
        try await device.writeSessions(3, prefix: "b")
        try await uploader.waitUntilUploaded(through: 52)
        try await server.database.expectHoldsPrefix(of: device, count: 52)
        #expect(uploader.progress.recordsUploaded == 40 + 32)
        await uploader.stop()
        try await server.stop()
    }

    @Test func truncatedTamperedAndOversizedBodiesStoreNothingAndTheUploaderConverges() async throws {
        let server = try await TestServer.start(maximumBodyBytes: 6000)
        let device = try Device()
        try await device.writeSessions(30, prefix: "body")
        let batch = try device.batch(from: 1, limit: 8)
        let body = batch.encoded()
        #expect(body.count < 6000)
        // Cut anywhere: 400 naming the offset, nothing stored.
        for cut in [4, 20, body.count / 2, body.count - 1] {
            let response = try await server.request(
                "POST", "/v1/stores/\(device.storeID.uuidString)/records", key: server.app.ingestKey,
                body: Array(body[..<cut]))
            #expect(response.status == 400, "cut at \(cut): \(response.text)")
        }
        // A record's byte changed (its checksum no longer matches): 400 naming the record.
        var tampered = batch
        tampered.records[3][tampered.records[3].count / 2] ^= 0x20
        let refused = try await server.upload(tampered, store: device.storeID)
        #expect(refused.status == 400)
        #expect(try refused.object()["recordIndex"] as? Int == 3)
        // Larger than the server takes: 413.
        let large = try await server.upload(try device.batch(from: 1, limit: 100), store: device.storeID)
        #expect(large.status == 413)
        try await server.database.expectHoldsPrefix(of: device, count: 0)
        // The uploader's batches are larger than the server takes: it halves them until they fit.
        let uploader = Uploader.forTest(device, port: server.port, key: server.app.ingestKey.token, batchRecords: 120)
        let progress = try await uploader.uploadNow()
        #expect(progress.acknowledgedThrough == 120)
        try await server.database.expectHoldsPrefix(of: device, count: 120)
        // A record larger than the server takes on its own: a typed error, the rest kept.
        let session = try await device.engine.startSession(id: "huge", machine: ExampleMachines.Kanji.definition.name)
        _ = try await session.enter(
            ExampleMachines.Kanji.State.detail,
            data: ExampleMachines.Kanji.Character(character: "木", meanings: [String(repeating: "tree ", count: 2000)]))
        do {
            _ = try await uploader.uploadNow()
            Issue.record("a record larger than the server's limit uploaded")
        } catch let error as UploadError {
            guard case .recordTooLarge(let sequence, _, _) = error else {
                Issue.record("expected recordTooLarge, got \(error)")
                return
            }
            #expect(sequence == 122)
        }
        try await server.database.expectHoldsPrefix(of: device, count: 121)
        try await server.stop()
    }

    @Test func unknownAndWrongKindKeysAreTypedErrorsThatStoreNothing() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.writeSessions(5, prefix: "keys")
        let unknown = "rewind_ingest_0123456789abcdef_" + String(repeating: "ab", count: 32)
        let cases: [(key: String, expected: (UploadError) -> Bool)] = [
            (server.app.readKey.token, { if case .forbidden = $0 { true } else { false } }),
            (unknown, { if case .unauthorized = $0 { true } else { false } }),
            ("not a key", { if case .unauthorized = $0 { true } else { false } }),
            (tampered(server.app.ingestKey.token), { if case .unauthorized = $0 { true } else { false } }),
        ]
        for (key, expected) in cases {
            let uploader = Uploader.forTest(device, port: server.port, key: key)
            await uploader.start()
            // The background upload gives up at once (no retry can fix a key) with a typed error.
            let failed = try await uploader.wait { if case .failed = $0.status { true } else { false } }
            guard case .failed(let error) = failed.status else { continue }
            #expect(expected(error), "\(key): \(error)")
            #expect(!error.isRetryable)
            #expect(failed.failures == 1)
            await #expect(throws: UploadError.self) { try await uploader.waitUntilUploaded() }
            await uploader.stop()
        }
        try await server.database.expectHoldsPrefix(of: device, count: 0)
        // With the right key it converges.
        let uploader = Uploader.forTest(device, port: server.port, key: server.app.ingestKey.token)
        await uploader.start()
        try await uploader.waitUntilUploaded(through: 20)
        try await server.database.expectHoldsPrefix(of: device, count: 20)
        await uploader.stop()
        try await server.stop()
    }
}

/// `token` with its last character changed (a key that was once valid, mistyped).
private func tampered(_ token: String) -> String {
    String(token.dropLast()) + (token.last == "0" ? "1" : "0")
}
