import Foundation
import Rewind
import RewindExamples
import RewindServer
@_spi(Internals) import RewindStore
import RewindWire
import Testing

/// `POST /v1/stores/{id}/records` against a real server and a real PostgreSQL database, with
/// batches read from a real device store.
@Suite(.timeLimit(.minutes(10))) struct IngestionTests {
    @Test func uploadsADeviceStoreInBatchesByteForByte() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["alice", "bob", "carol"])
        let session = try await device.engine.startSession(id: "dave", machine: ExampleMachines.Kanji.definition.name)
        _ = try await session.enter(
            ExampleMachines.Kanji.State.detail,
            data: ExampleMachines.Kanji.Character(character: "木", meanings: ["tree"]))
        let deviceRecords = try device.records()
        #expect(deviceRecords.count == 14)

        var next: UInt64 = 1
        while next <= UInt64(deviceRecords.count) {
            let response = try await server.upload(try device.batch(from: next, limit: 5), store: device.storeID)
            #expect(response.status == 200, "\(response.text)")
            let result = try response.json(IngestionResult.self)
            #expect(result.storeID == device.storeID)
            #expect(result.nextSequence == min(next + 5, UInt64(deviceRecords.count) + 1))
            #expect(result.stored == Int(result.nextSequence - next))
            next = result.nextSequence
        }
        #expect(try await server.position(store: device.storeID) == 15)
        #expect(try await server.position(store: device.storeID, key: server.app.ingestKey) == 15)

        let stored = try await server.database.records(store: device.storeID)
        #expect(stored.map(\.sequence) == Array(1...14))
        for (row, record) in zip(stored, deviceRecords) {
            #expect(row.bytes == RecordCodec.encode(record))
            #expect(try RecordCodec.decode(row.bytes, sequence: record.sequence) == record)
            #expect(row.session == record.session.rawValue)
            #expect(row.machine == record.machine)
            #expect(row.event == record.event)
        }
        #expect(try await server.database.count("definitions") == 2)

        let list = try await server.request("GET", "/v1/sessions", key: server.app.readKey)
        #expect(list.status == 200)
        let sessions = try list.json(SessionList.self).sessions
        #expect(sessions.map(\.sessionID) == ["alice", "bob", "carol", "dave"])
        for summary in sessions {
            let info = try #require(try device.engine.store.sessionInfo(for: SessionID(summary.sessionID)))
            #expect(summary.headVersion == Int64(info.headVersion))
            #expect(summary.recordCount == Int64(info.recordCount))
            #expect(summary.storeID == device.storeID)
        }
        let onboarding = try await server.request(
            "GET", "/v1/sessions?machine=\(ExampleMachines.Onboarding.definition.name)", key: server.app.readKey)
        #expect(try onboarding.json(SessionList.self).sessions.map(\.sessionID) == ["alice", "bob", "carol"])
        try await server.stop()
    }

    @Test func aBatchSentAgainIsAcknowledgedAndNotStoredTwice() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["s1", "s2"])
        let batch = try device.batch()
        let first = try await server.upload(batch, store: device.storeID)
        #expect(first.status == 200)
        let again = try await server.upload(batch, store: device.storeID)
        #expect(again.status == 200)
        let result = try again.json(IngestionResult.self)
        #expect(result.nextSequence == 9)
        #expect(result.stored == 0)
        #expect(result.alreadyHeld == 8)
        // A batch that overlaps what the server holds and goes on stores only the rest.
        try await device.runOnboarding(["s3"])
        let overlapping = try await server.upload(try device.batch(from: 5), store: device.storeID)
        #expect(
            try overlapping.json(IngestionResult.self)
                == IngestionResult(storeID: device.storeID, nextSequence: 13, stored: 4, alreadyHeld: 4))
        #expect(try await server.database.count("records") == 12)
        #expect(try await server.database.count("sessions") == 3)
        try await server.stop()
    }

    @Test func concurrentUploadsOfOneStoreStoreEachRecordOnce() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["a", "b", "c", "d"])
        let batch = try device.batch()
        let results = try await withThrowingTaskGroup(of: IngestionResult.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let response = try await server.upload(batch, store: device.storeID)
                    guard response.status == 200 else { throw TestServer.UnexpectedResponse(response: response) }
                    return try response.json(IngestionResult.self)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.nextSequence == 17 })
        #expect(results.map(\.stored).reduce(0, +) == 16)
        #expect(results.filter { $0.stored == 16 }.count == 1)
        #expect(try await server.database.count("records") == 16)
        let sessions = try await server.request("GET", "/v1/sessions", key: server.app.readKey).json(SessionList.self)
            .sessions
        #expect(sessions.map(\.recordCount) == [4, 4, 4, 4])
        try await server.stop()
    }

    @Test func aGapIsAConflictCarryingTheNextExpectedSequence() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["one", "two", "three"])
        #expect(try await server.upload(try device.batch(from: 1, limit: 4), store: device.storeID).status == 200)
        let gap = try await server.upload(try device.batch(from: 7), store: device.storeID)
        #expect(gap.status == 409)
        #expect(try gap.object()["nextSequence"] as? Int == 5)
        #expect(try await server.database.count("records") == 4)
        // A batch starting past 1 for a store the server has never seen is a gap too.
        let unknown = try Device()
        try await unknown.runOnboarding(["x"])
        let fresh = try await server.upload(try unknown.batch(from: 2), store: unknown.storeID)
        #expect(fresh.status == 409)
        #expect(try fresh.object()["nextSequence"] as? Int == 1)
        try await server.stop()
    }

    @Test func aDifferentRecordAtAHeldSequenceIsAConflict() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["p"])
        #expect(try await server.upload(try device.batch(), store: device.storeID).status == 200)
        let other = try Device()
        try await other.runOnboarding(["q"])
        let clash = try await server.upload(try other.batch(), store: device.storeID)
        #expect(clash.status == 409)
        let body = try clash.object()
        #expect(body["nextSequence"] as? Int == 5)
        #expect(body["sequence"] as? Int == 1)
        #expect(try await server.database.records(store: device.storeID).map(\.session) == ["p", "p", "p", "p"])
        try await server.stop()
    }

    @Test func aTamperedRecordStoresNothingAndSaysWhere() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["t1", "t2"])
        var batch = try device.batch()
        batch.records[5][batch.records[5].count / 2] ^= 0x20
        let response = try await server.upload(batch, store: device.storeID)
        #expect(response.status == 400)
        let body = try response.object()
        #expect(body["recordIndex"] as? Int == 5)
        #expect(body["sequence"] as? Int == 6)
        #expect((body["error"] as? String)?.contains("checksum") == true, "\(body)")
        #expect(try await server.database.count("records") == 0)
        #expect(try await server.database.count("definitions") == 0)
        #expect(try await server.position(store: device.storeID) == 1)
        try await server.stop()
    }

    @Test func aRecordUnderAnotherSequenceIsRejected() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["m"])
        var batch = try device.batch()
        batch.records.swapAt(1, 2)
        let response = try await server.upload(batch, store: device.storeID)
        #expect(response.status == 400)
        #expect(try response.object()["sequence"] as? Int == 2)
        #expect(try await server.database.count("records") == 0)
        try await server.stop()
    }

    @Test func aTruncatedBodyStoresNothing() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["u1", "u2"])
        let bytes = try device.batch().encoded()
        for cut in [3, 20, bytes.count / 2, bytes.count - 1] {
            let response = try await server.request(
                "POST", "/v1/stores/\(device.storeID)/records", key: server.app.ingestKey, body: Array(bytes[..<cut]))
            #expect(response.status == 400, "cut at \(cut)")
            #expect(try response.object()["offset"] is Int)
        }
        // Bytes after the last record: rejected too.
        let padded = try await server.request(
            "POST", "/v1/stores/\(device.storeID)/records", key: server.app.ingestKey, body: bytes + [0])
        #expect(padded.status == 400)
        // A client that hangs up halfway through its body.
        let head =
            "POST /v1/stores/\(device.storeID)/records HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Authorization: Bearer \(server.app.ingestKey.token)\r\nContent-Length: \(bytes.count)\r\n\r\n"
        try await RawHTTP.sendAndHangUp(port: server.port, bytes: Array(head.utf8) + bytes[..<(bytes.count / 2)])
        #expect(try await server.database.count("records") == 0)
        // The whole batch afterwards is stored whole.
        let whole = try await server.upload(try device.batch(), store: device.storeID)
        #expect(try whole.json(IngestionResult.self).stored == 8)
        #expect(try await server.database.count("records") == 8)
        try await server.stop()
    }

    @Test func anOversizedBodyIs413AndStoresNothing() async throws {
        let server = try await TestServer.start(maximumBodyBytes: 2048)
        let device = try Device()
        try await device.runOnboarding((1...10).map { "big-\($0)" })
        let batch = try device.batch()
        #expect(batch.encoded().count > 2048)
        let response = try await server.upload(batch, store: device.storeID)
        #expect(response.status == 413)
        #expect(try response.object()["maximumBodyBytes"] as? Int == 2048)
        #expect(try await server.database.count("records") == 0)
        // Smaller batches of the same records go through.
        let small = try await server.upload(try device.batch(from: 1, limit: 4), store: device.storeID)
        #expect(small.status == 200)
        try await server.stop()
    }

    @Test func definitionsMustBeSentOnceAndMatchTheirContentVersion() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["d1", "d2"])
        var missing = try device.batch(from: 1, limit: 4)
        missing.definitions = []
        let unknown = try await server.upload(missing, store: device.storeID)
        #expect(unknown.status == 400)
        #expect(try unknown.object()["recordIndex"] as? Int == 0)
        var forged = try device.batch(from: 1, limit: 4)
        forged.definitions[0].document += Array(" ".utf8)
        let mismatch = try await server.upload(forged, store: device.storeID)
        #expect(mismatch.status == 400)
        #expect(try mismatch.object()["definitionIndex"] as? Int == 0)
        #expect(try await server.database.count("definitions") == 0)
        #expect(try await server.upload(try device.batch(from: 1, limit: 4), store: device.storeID).status == 200)
        // Later batches may leave out what the server holds.
        var later = try device.batch(from: 5)
        later.definitions = []
        #expect(try await server.upload(later, store: device.storeID).status == 200)
        #expect(try await server.database.count("definitions") == 1)
        try await server.stop()
    }

    @Test func aStoreWrittenByAnEarlierVersionUploadsWhole() async throws {
        // The store committed in Tests/Fixtures, written by main at e1a963d.
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Fixtures/store-e1a963d/store").path
        let server = try await TestServer.start()
        let device = try Device(copying: fixture)
        let records = try device.records()
        #expect(!records.isEmpty)
        let response = try await server.upload(try device.batch(), store: device.storeID)
        #expect(response.status == 200, "\(response.text)")
        #expect(try response.json(IngestionResult.self).nextSequence == UInt64(records.count) + 1)
        #expect(
            try await server.database.records(store: device.storeID).map(\.bytes) == records.map(RecordCodec.encode))
        try await server.stop()
    }
}

/// The body of `GET /v1/sessions`.
struct SessionList: Decodable {
    struct Summary: Decodable {
        var storeID: UUID
        var sessionID: String
        var machine: String
        var headVersion: Int64
        var recordCount: Int64
    }
    var sessions: [Summary]
}
