import Foundation
import PostgresNIO
import Rewind
import RewindExamples
import RewindServer
@_spi(Internals) import RewindStore
import RewindWire
import Testing

/// The fleet server forgets: a device's erasure notices, the app team's erasure requests and the
/// retention pass delete sessions in one transaction, tombstones keep erased sessions from
/// coming back, uploads skip what was erased, replay answers 410, and the projections equal
/// those of a server that only ever received what is kept.
@Suite(.timeLimit(.minutes(10))) struct ErasureTests {
    // MARK: Notices

    @Test func aNoticeIsAppliedOnceAndResentNoticesAreIgnored() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["a", "b", "c"])
        try await server.uploadAll(device)
        let notice = try Self.notice(1, .session, sequences: device.sequences(of: "b"))

        let first = try await Self.send([notice], store: device.storeID, server: server)
        #expect(first.status == 200, "\(first.text)")
        let answer = try first.json(NoticesBody.self)
        #expect(answer.through == 1)
        #expect(answer.erased.map(\.number) == [1])
        #expect(answer.erased.first?.sessions.map(\.session) == ["b"])
        #expect(answer.erased.first?.sessions.first?.stores.map(\.records) == [4])
        #expect(
            try await server.database.records(store: device.storeID).map(\.session) == Array(repeating: "a", count: 4)
                + Array(repeating: "c", count: 4))
        #expect(Set(try await server.database.sessionHeads(store: device.storeID).keys) == ["a", "c"])

        // Sent again (the answer was lost): ignored, the same `through`.
        let again = try await Self.send([notice], store: device.storeID, server: server)
        #expect(again.status == 200)
        #expect(try again.json(NoticesBody.self).through == 1)
        #expect(try again.json(NoticesBody.self).erased.isEmpty)
        // A skipped number is refused, and nothing of it is applied.
        let skipping = try Self.notice(3, .session, sequences: device.sequences(of: "a"))
        let refused = try await Self.send([skipping], store: device.storeID, server: server)
        #expect(refused.status == 409)
        #expect(try refused.object()["through"] as? Int == 1)
        #expect(try await server.database.records(store: device.storeID).count == 8)
        // A body that is not notices is a 400 in JSON.
        let garbage = try await server.request(
            "POST", "/v1/stores/\(device.storeID)/erasures", key: server.app.ingestKey,
            body: Array(#"{"notices": [{"number": 1, "kind": "everything"}]}"#.utf8))
        #expect(garbage.status == 400)
        #expect(try garbage.object()["error"] is String)

        // The tombstone keeps a hash of the id, never the id.
        let tombstones = try await server.database.withClient { client in
            var hashes: [[UInt8]] = []
            for try await hash in try await client.query("SELECT session_hash FROM tombstones").decode(ByteBuffer.self)
            {
                hashes.append(Array(buffer: hash))
            }
            return hashes
        }
        #expect(tombstones.count == 1)
        #expect(tombstones.first?.count == 32)
        #expect(tombstones.first != Array("b".utf8))
        try await server.stop()
    }

    @Test func anErasedSessionIsErasedFromEveryStoreOfTheAppAndItsProjectionsWithIt() async throws {
        let server = try await TestServer.start()
        let first = try Device()
        let second = try Device()
        try await first.runMixed(records: 60, seed: 5, prefix: "one")
        try await first.runOnboarding(["shared"])
        try await first.runMixed(records: 30, seed: 6, prefix: "one-later")
        try await second.runMixed(records: 50, seed: 7, prefix: "two")
        try await second.runOnboarding(["shared"])
        try await server.uploadAll(first, batchSize: 25)
        try await server.uploadAll(second, batchSize: 25)
        try await server.waitUntilCaughtUp()

        let response = try await Self.send(
            [try Self.notice(1, .session, sequences: first.sequences(of: "shared"))], store: first.storeID,
            server: server)
        #expect(response.status == 200, "\(response.text)")
        let erased = try #require(try response.json(NoticesBody.self).erased.first?.sessions.first)
        #expect(erased.session == "shared")
        #expect(Set(erased.stores.map(\.storeID)) == [first.storeID, second.storeID])
        #expect(erased.stores.map(\.records) == [4, 4])
        for device in [first, second] {
            #expect(!(try await server.database.records(store: device.storeID)).contains { $0.session == "shared" })
        }
        try await server.waitUntilCaughtUp()
        try await Self.expectProjectionsOfAServerThatOnlyReceived(
            [(first, ["shared"]), (second, ["shared"])], equal: server)
        try await server.stop()
    }

    @Test func aReuploadOfAnErasedSessionIsDroppedAndNothingComesBack() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["a", "b", "c"])
        try await server.uploadAll(device)
        #expect(
            try await Self.send(
                [try Self.notice(1, .session, sequences: device.sequences(of: "b"))],
                store: device.storeID, server: server
            ).status == 200)

        // An old batch sent again: b's records are acknowledged as erased, not stored.
        let resent = try await server.upload(try device.batch(), store: device.storeID)
        #expect(resent.status == 200, "\(resent.text)")
        let result = try resent.json(IngestionResult.self)
        #expect(result.stored == 0)
        #expect(result.alreadyHeld == 8)
        #expect(result.erased == 4)
        #expect(result.nextSequence == 13)
        // Another device's copy of b (a store the server has never seen): dropped too.
        let copy = try Device()
        try await copy.runOnboarding(["b", "d"])
        let copied = try await server.upload(try copy.batch(), store: copy.storeID)
        #expect(copied.status == 200, "\(copied.text)")
        let copyResult = try copied.json(IngestionResult.self)
        #expect(copyResult.stored == 4)
        #expect(copyResult.erased == 4)
        #expect(copyResult.nextSequence == 9)
        #expect(
            try await server.database.records(store: copy.storeID).map(\.session) == Array(repeating: "d", count: 4))
        #expect(try await server.database.records(store: device.storeID).count == 8)
        #expect(!(try await server.database.sessionHeads(store: copy.storeID).keys.contains("b")))
        // The copy's position passed the dropped records, and its projections catch up.
        #expect(try await server.position(store: copy.storeID) == 9)
        try await server.waitUntilCaughtUp()
        let funnel = try await server.get("/v1/machines/onboarding/funnel").json(FunnelBody.self)
        #expect(funnel.sessions == 3)
        try await server.stop()
    }

    @Test func aBatchMaySkipSequencesTheDeviceErasedBeforeUploadingThem() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["a", "b", "c"])
        // Only a's records were uploaded when the device erased b (5…8).
        #expect(try await server.upload(try device.batch(limit: 4), store: device.storeID).status == 200)
        let response = try await Self.send(
            [try Self.notice(1, .session, sequences: device.sequences(of: "b"))],
            store: device.storeID, server: server)
        #expect(response.status == 200, "\(response.text)")
        #expect(try response.json(NoticesBody.self).erased.first?.sessions.isEmpty == true)
        // The position passes the erased range; the upload resumes after it.
        #expect(try await server.position(store: device.storeID) == 9)
        let rest = try await server.upload(try device.batch(from: 9), store: device.storeID)
        #expect(rest.status == 200, "\(rest.text)")
        #expect(try rest.json(IngestionResult.self).stored == 4)
        #expect(
            try await server.database.records(store: device.storeID).map(\.sequence) == [1, 2, 3, 4, 9, 10, 11, 12])
        // A batch that still holds the erased records (built before the erasure): they are dropped.
        let old = try await server.upload(try device.batch(from: 3), store: device.storeID)
        #expect(old.status == 200, "\(old.text)")
        #expect(try old.json(IngestionResult.self).erased == 4)
        #expect(try await server.database.records(store: device.storeID).count == 8)
        // Nothing is left for the projections to fold across the gap.
        try await server.waitUntilCaughtUp()
        try await Self.expectProjectionsOfAServerThatOnlyReceived([(device, ["b"])], equal: server)
        try await server.stop()
    }

    @Test func aRecordsNoticeTrimsHistoryAndReplayBeginsAtTheBase() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["a", "b"])
        try await server.uploadAll(device)
        let trimmed = Array(try device.sequences(of: "a").prefix(2))
        let response = try await Self.send(
            [try Self.notice(1, .records, sequences: trimmed)], store: device.storeID, server: server)
        #expect(response.status == 200, "\(response.text)")
        #expect(try response.json(NoticesBody.self).erased.first?.records == 2)
        // The session is kept with what is left.
        let heads = try await server.database.sessionHeads(store: device.storeID)
        #expect(heads["a"]?.headVersion == 4)
        #expect(heads["a"]?.recordCount == 2)
        // Its history begins at the base the server rebuilt from the records it held.
        let history = try await server.request(
            "GET", "/v1/stores/\(device.storeID)/sessions/a/history", key: server.app.readKey)
        #expect(history.status == 200, "\(history.text)")
        #expect(try history.json([HistoryRow].self).map(\.version) == [3, 4])
        let below = try await server.request(
            "GET", "/v1/stores/\(device.storeID)/sessions/a/state?version=2", key: server.app.readKey)
        #expect(below.status == 410, "\(below.text)")
        #expect(try below.object()["historyBeginsAt"] as? Int == 3)
        let listed = try await server.get("/v1/stores/\(device.storeID)/sessions").json(StoreSessionsBody.self)
        #expect(listed.sessions.map(\.session) == ["a", "b"])
        #expect(try await server.database.tombstoneCount() == 0)
        try await server.stop()
    }

    // MARK: Replay of an erased session

    @Test func replayRoutesOfAnErasedSessionAnswer410WithWhen() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["a", "b"])
        try await server.uploadAll(device)
        let erasedAt = "2026-11-28T10:00:00Z"
        #expect(
            try await Self.send(
                [try Self.notice(1, .session, sequences: device.sequences(of: "b"), erasedAt: erasedAt)],
                store: device.storeID, server: server
            ).status == 200)
        let base = "/v1/stores/\(device.storeID)/sessions/b"
        let definition = Array(ExampleMachines.Onboarding.definition.jsonDocument())
        for (method, path, body) in [
            ("GET", base, nil), ("GET", base + "/history", nil), ("GET", base + "/state?version=1", nil),
            ("GET", base + "/diff?from=0&to=2", nil), ("POST", base + "/verify", definition),
            ("GET", base + "/archive", nil), ("GET", base + "/page", nil),
        ] as [(String, String, [UInt8]?)] {
            let response = try await server.request(method, path, key: server.app.readKey, body: body)
            #expect(response.status == 410, "\(path): \(response.text)")
            let object = try response.object()
            #expect((object["error"] as? String)?.contains("erased") == true, "\(path)")
            #expect(object["erasedAt"] as? String == "2026-11-28T10:00:00.000Z", "\(path)")
        }
        // A session that never was is still unknown.
        let unknown = try await server.request(
            "GET", "/v1/stores/\(device.storeID)/sessions/never/history", key: server.app.readKey)
        #expect(unknown.status == 404)
        try await server.stop()
    }

    // MARK: Requests of the app team

    @Test func theAppTeamErasesEverySessionOfAUserWithAnEraseKey() async throws {
        let server = try await TestServer.start()
        let eraseKey = try await server.database.withClient { client in
            try await KeyRegistry(client: client, logger: testLogger).addKey(kind: .erase, toApp: server.app.appID)
        }
        let first = try Device()
        let second = try Device()
        for (device, prefix) in [(first, "one"), (second, "two")] {
            try await device.runOnboarding("\(prefix)-42", context: ["user": ["id": 42, "name": "Ada"]])
            try await device.runOnboarding("\(prefix)-7", context: ["user": ["id": 7]])
            try await device.runOnboarding("\(prefix)-none", context: .null)
            try await server.uploadAll(device)
        }
        try await server.waitUntilCaughtUp()
        let body = Array(#"{"context": {"path": ["user", "id"], "equals": 42.0}}"#.utf8)

        // Other keys may not erase; no key is a 401.
        for key in [server.app.readKey, server.app.ingestKey] {
            let refused = try await server.request("POST", "/v1/erasures", key: key, body: body)
            #expect(refused.status == 403)
            #expect(try refused.object()["error"] is String)
        }
        #expect(try await server.request("POST", "/v1/erasures", body: body).status == 401)
        // An erase key reads nothing.
        #expect(try await server.request("GET", "/v1/sessions", key: eraseKey).status == 403)
        #expect(try await server.request("GET", "/v1/stores/\(first.storeID)/position", key: eraseKey).status == 403)
        #expect(try await server.database.count("records") == 2 * 12)

        let response = try await server.request("POST", "/v1/erasures", key: eraseKey, body: body)
        #expect(response.status == 200, "\(response.text)")
        let report = try response.json(ReportBody.self)
        #expect(report.sessions.map(\.session) == ["one-42", "two-42"])
        #expect(report.stores == 2)
        #expect(report.records == 8)
        #expect(report.sessions.map { $0.stores.map(\.storeID) } == [[first.storeID], [second.storeID]])

        // One session by id, and one the server has not received yet (tombstoned all the same).
        let single = try await server.request(
            "POST", "/v1/erasures", key: eraseKey, body: Array(#"{"session": "one-7"}"#.utf8))
        #expect(try single.json(ReportBody.self).records == 4)
        let ahead = try await server.request(
            "POST", "/v1/erasures", key: eraseKey, body: Array(#"{"session": "three-1"}"#.utf8))
        #expect(try ahead.json(ReportBody.self).sessions.first?.stores.isEmpty == true)
        let third = try Device()
        try await third.runOnboarding(["three-1", "three-2"])
        let upload = try await server.upload(try third.batch(), store: third.storeID)
        #expect(try upload.json(IngestionResult.self).erased == 4)
        #expect(Set(try await server.database.sessionHeads(store: third.storeID).keys) == ["three-2"])

        let bad = try await server.request(
            "POST", "/v1/erasures", key: eraseKey, body: Array(#"{"context": {"equals": 1}}"#.utf8))
        #expect(bad.status == 400)
        try await server.waitUntilCaughtUp()
        try await Self.expectProjectionsOfAServerThatOnlyReceived(
            [(first, ["one-42", "one-7"]), (second, ["two-42"]), (third, ["three-1"])], equal: server)
        try await server.stop()
    }

    @Test func anErasureWhileDevicesUploadLosesNothingOfTheirs() async throws {
        let server = try await TestServer.start()
        let eraseKey = try await server.database.withClient { client in
            try await KeyRegistry(client: client, logger: testLogger).addKey(kind: .erase, toApp: server.app.appID)
        }
        let devices = try (0..<4).map { _ in try Device() }
        for (index, device) in devices.enumerated() {
            try await device.runMixed(records: 80, seed: 100 + UInt64(index), prefix: "d\(index)")
            try await device.runOnboarding(["victim"])
            try await device.runMixed(records: 40, seed: 200 + UInt64(index), prefix: "d\(index)-later")
        }
        let total = try devices.reduce(0) { $0 + (try $1.records().count) }
        let database = server.database
        try await withThrowingTaskGroup(of: Void.self) { group in
            for device in devices {
                group.addTask { try await server.uploadAll(device, batchSize: 7) }
            }
            // The erasure comes once a fifth of the records is stored: in the middle of the uploads.
            group.addTask {
                while try await database.count("records") < total / 5 { await Task.yield() }
                let response = try await server.request(
                    "POST", "/v1/erasures", key: eraseKey, body: Array(#"{"session": "victim"}"#.utf8))
                guard response.status == 200 else { throw TestServer.UnexpectedResponse(response: response) }
            }
            try await group.waitForAll()
        }
        for device in devices {
            let kept = try device.records().filter { $0.session.rawValue != "victim" }
            let stored = try await database.records(store: device.storeID)
            #expect(stored.map(\.sequence) == kept.map { Int64($0.sequence) })
            #expect(stored.map(\.bytes) == kept.map(RecordCodec.encode))
        }
        try await server.waitUntilCaughtUp()
        try await Self.expectProjectionsOfAServerThatOnlyReceived(devices.map { ($0, ["victim"]) }, equal: server)
        try await server.stop()
    }

    // MARK: Retention

    @Test func retentionRemovesExpiredSessionsInBoundedBatches() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        let ids = try await device.runMixed(records: 120, seed: 9, prefix: "r")
        try await server.uploadAll(device, batchSize: 30)
        try await server.waitUntilCaughtUp()
        let retention: Duration = .seconds(86_400)
        try await server.database.withClient { client in
            try await KeyRegistry(client: client, logger: testLogger).setRetention(retention, ofApp: server.app.appID)
        }
        // "Now" is a day after a moment between the 6th and the 7th session's last records.
        let lasts = try device.engine.sessions().map(\.updated.microsecondsSince1970).sorted()
        #expect(lasts.count == ids.count && lasts.count > 7)
        let cutoff = lasts[5] + (lasts[6] - lasts[5]) / 2
        let now = Date(timeIntervalSince1970: Double(cutoff) / 1_000_000 + 86_400)
        let expired = Set(
            try device.engine.sessions().filter { $0.updated.microsecondsSince1970 < cutoff }.map(\.session.rawValue))
        #expect(expired.count == 6)

        let result = try await server.database.withClient { client in
            try await Retention.pass(on: client, now: now, sessionsPerTransaction: 4, logger: testLogger)
        }
        #expect(result.sessions == 6)
        #expect(result.transactions == 2)
        #expect(result.records == Int64(try device.records().filter { expired.contains($0.session.rawValue) }.count))
        #expect(
            Set(try await server.database.sessionHeads(store: device.storeID).keys) == Set(ids).subtracting(expired))
        // A second pass at the same time finds nothing.
        let again = try await server.database.withClient { client in
            try await Retention.pass(on: client, now: now, sessionsPerTransaction: 4, logger: testLogger)
        }
        #expect(again.sessions == 0)
        // The old batches sent again do not bring the expired sessions back.
        let resent = try await server.upload(try device.batch(), store: device.storeID)
        #expect(try resent.json(IngestionResult.self).stored == 0)
        try await server.waitUntilCaughtUp()
        try await Self.expectProjectionsOfAServerThatOnlyReceived([(device, expired)], equal: server)
        try await server.stop()
    }

    // MARK: Helpers

    struct NoticeBody: Encodable {
        var number: Int64
        var kind: String
        var erasedAt: String
        var ranges: [[UInt64]]
    }

    struct NoticesBody: Decodable {
        struct Outcome: Decodable {
            var number: Int64
            var kind: String
            var sessions: [ErasedSession]
            var records: Int64
        }
        var through: Int64
        var erased: [Outcome]
    }

    struct ReportBody: Decodable {
        var erasedAt: String
        var sessions: [ErasedSession]
        var stores: Int
        var records: Int64
    }

    struct StoreSessionsBody: Decodable {
        struct Listing: Decodable { var session: String }
        var sessions: [Listing]
    }

    /// A notice of `sequences`, as coalesced ranges.
    static func notice(
        _ number: Int64, _ kind: ServerErasureNotice.Kind, sequences: [UInt64],
        erasedAt: String = "2026-11-28T12:00:00Z"
    ) throws -> NoticeBody {
        var ranges: [[UInt64]] = []
        for sequence in sequences.sorted() {
            if let last = ranges.last?.last, last + 1 == sequence {
                ranges[ranges.count - 1][1] = sequence
            } else {
                ranges.append([sequence, sequence])
            }
        }
        return NoticeBody(number: number, kind: kind.rawValue, erasedAt: erasedAt, ranges: ranges)
    }

    /// Sends `notices` for `storeID` with the app's ingestion key.
    static func send(_ notices: [NoticeBody], store storeID: UUID, server: TestServer) async throws -> HTTPTestResponse
    {
        struct Body: Encodable { var notices: [NoticeBody] }
        let body = try JSONEncoder().encode(Body(notices: notices))
        return try await server.request(
            "POST", "/v1/stores/\(storeID)/erasures", key: server.app.ingestKey, body: Array(body))
    }

    /// Expects `server`'s projection states (by projection and session, over every store), funnels
    /// and stack depths to be those of a fresh server that only ever received each device's
    /// records of the sessions not in its `erased` set (renumbered without gaps).
    static func expectProjectionsOfAServerThatOnlyReceived(
        _ devices: [(device: Device, erased: Set<String>)], equal server: TestServer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let fresh = try await TestServer.start()
        for (device, erased) in devices {
            let kept = try device.records().filter { !erased.contains($0.session.rawValue) }
            guard !kept.isEmpty else { continue }
            let records = kept.enumerated().map { index, record in
                var renumbered = record
                renumbered.sequence = UInt64(index + 1)
                return RecordCodec.encode(renumbered)
            }
            let batch = IngestionBatch(firstSequence: 1, records: records, definitions: try device.batch().definitions)
            let response = try await fresh.upload(batch, store: device.storeID)
            #expect(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
        }
        try await fresh.waitUntilCaughtUp()
        let expected = try await fresh.database.projectionStates()
        #expect(expected.count == 2 && expected.values.allSatisfy { !$0.isEmpty }, sourceLocation: sourceLocation)
        #expect(try await server.database.projectionStates() == expected, sourceLocation: sourceLocation)
        for machine in ["onboarding", ExampleMachines.Kanji.definition.name] {
            let expected = try await fresh.request("GET", "/v1/machines/\(machine)/funnel", key: fresh.app.readKey)
            let actual = try await server.request("GET", "/v1/machines/\(machine)/funnel", key: server.app.readKey)
            #expect(actual.status == expected.status, sourceLocation: sourceLocation)
            if expected.status == 200 {
                #expect(
                    try actual.json(FunnelBody.self) == expected.json(FunnelBody.self), "\(machine)",
                    sourceLocation: sourceLocation)
            }
        }
        try await fresh.stop()
    }
}

extension Device {
    /// The global sequences of `session`'s records.
    func sequences(of session: String) throws -> [UInt64] {
        try records().filter { $0.session.rawValue == session }.map(\.sequence)
    }

    /// An onboarding session started with `context`, to its end (4 records).
    func runOnboarding(_ id: String, context: JSONValue) async throws {
        let session = try await engine.startSession(
            id: id, machine: ExampleMachines.Onboarding.definition.name, context: context)
        for event in ExampleMachines.Onboarding.Event.allCases { _ = try await session.send(event) }
    }
}

extension TestDatabase {
    /// Every projection state: projection → session key → the state's bytes (keys are unique
    /// across the stores of these tests).
    func projectionStates() async throws -> [String: [String: [UInt8]]] {
        try await withClient { client in
            var states: [String: [String: [UInt8]]] = [:]
            for try await (projection, key, state) in try await client.query(
                "SELECT projection, key, state FROM projection_states"
            ).decode((String, String, ByteBuffer).self) {
                states[projection, default: [:]][key] = Array(buffer: state)
            }
            return states
        }
    }

    /// How many tombstones the database holds.
    func tombstoneCount() async throws -> Int {
        try await count("tombstones")
    }
}
