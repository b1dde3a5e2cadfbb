import Foundation
import Rewind
import RewindExamples
import RewindServer
@_spi(Internals) import RewindStore
import Testing

/// Injection attempts, odd text and invalid UTF-8: stored and returned verbatim, or refused with a
/// 400; never run as SQL, never a 500.
@Suite(.timeLimit(.minutes(10))) struct HostileInputTests {
    static let hostileSessions = [
        "'; DROP TABLE records; --",
        "Robert'); DELETE FROM sessions WHERE ('1'='1",
        "\" OR 1=1 --",
        "$1::text",
        "%' OR session_id LIKE '%",
        "日本語 \u{1F600} e\u{301}",
        String(repeating: "x", count: SessionID.maximumByteCount),
    ]
    static let hostileMachine = "onboarding'); DROP TABLE definitions; --"

    @Test func injectionAttemptsAreStoredAndReturnedVerbatim() async throws {
        let server = try await TestServer.start()
        let device = try Device(extra: [(Self.hostileMachine, try ExampleMachines.Onboarding.machine())])
        for id in Self.hostileSessions {
            let session = try await device.engine.startSession(id: id, machine: Self.hostileMachine)
            _ = try await session.send(ExampleMachines.Onboarding.Event.launch)
        }
        let upload = try await server.upload(try device.batch(), store: device.storeID)
        #expect(upload.status == 200, "\(upload.text)")

        let stored = try await server.database.records(store: device.storeID)
        let records = try device.records()
        #expect(stored.map(\.bytes) == records.map(RecordCodec.encode))
        #expect(stored.map(\.session) == records.map(\.session.rawValue))
        #expect(Set(stored.map(\.machine)) == [Self.hostileMachine])
        for table in ["records", "sessions", "definitions"] as [StaticString] {
            #expect(try await server.database.count(table) > 0)
        }

        let all = try await server.request("GET", "/v1/sessions", key: server.app.readKey).json(SessionList.self)
        let expected = Self.hostileSessions.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(
            all.sessions.map(\.sessionID).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
                == expected)
        #expect(Set(all.sessions.map(\.machine)) == [Self.hostileMachine])

        // The exact hostile name as a filter finds its sessions; injection attempts find nothing.
        let exact = try await sessions(server, machine: Self.hostileMachine)
        #expect(exact.count == Self.hostileSessions.count)
        for filter in ["' OR '1'='1", "onboarding' --", "%", "*", "onboarding'); DROP TABLE definitions; -- "] {
            #expect(try await sessions(server, machine: filter).isEmpty, "\(filter)")
        }
        #expect(try await server.database.count("definitions") == 1)
        try await server.stop()
    }

    private func sessions(_ server: TestServer, machine: String) async throws -> [SessionList.Summary] {
        let encoded = try #require(machine.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let response = try await server.request("GET", "/v1/sessions?machine=\(encoded)", key: server.app.readKey)
        #expect(response.status == 200, "\(response.text)")
        return try response.json(SessionList.self).sessions
    }

    @Test func invalidUTF8InARecordIsRefusedWhereItIs() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["utf"])
        var batch = try device.batch()
        // Record 1's session id is "utf" (after format, flags, two varints and the timestamp):
        // make its first byte a lone continuation byte and seal the record with a valid checksum.
        let record = batch.records[1]
        let session = Array("utf".utf8)
        let at = try #require(record.indices.first { record[$0...].starts(with: [3] + session) })
        var forged = record
        forged[at + 1] = 0x80
        batch.records[1] = resealed(forged)
        let response = try await server.upload(batch, store: device.storeID)
        #expect(response.status == 400, "\(response.text)")
        let body = try response.object()
        #expect(body["recordIndex"] as? Int == 1)
        #expect(body["sequence"] as? Int == 2)
        #expect(try await server.database.count("records") == 0)
        try await server.stop()
    }

    @Test func invalidUTF8InTheFramingAndTheQueryIsA400OrNothing() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["v"])
        var bytes = try device.batch().encoded()
        // The first definition's machine name starts after magic, sequence and the two counts, and its length.
        bytes[4 + 8 + 4 + 4 + 4] = 0xFF
        let framing = try await server.request(
            "POST", "/v1/stores/\(device.storeID)/records", key: server.app.ingestKey, body: bytes)
        #expect(framing.status == 400)
        #expect((try framing.object()["error"] as? String)?.contains("UTF-8") == true)

        let query = try await server.request("GET", "/v1/sessions?machine=%FF%FE", key: server.app.readKey)
        #expect(query.status == 200)
        #expect(try query.json(SessionList.self).sessions.isEmpty)
        for path in ["/v1/stores/not-a-uuid/position", "/v1/stores/%FF/position", "/v1/stores/'%20OR%201=1/position"] {
            #expect(try await server.request("GET", path, key: server.app.readKey).status == 400, "\(path)")
        }
        for query in ["limit=0", "limit=1001", "limit=1;DROP", "store=x"] {
            #expect(
                try await server.request("GET", "/v1/sessions?\(query)", key: server.app.readKey).status == 400,
                "\(query)")
        }
        try await server.stop()
    }
}
