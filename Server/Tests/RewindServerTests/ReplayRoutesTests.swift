import Foundation
import Rewind
import RewindExamples
import RewindServer
import RewindWire
import Testing

/// The replay endpoints answer what the device's engine answers for the same session, over its
/// own store: history, the state at every version, diffs, verification and the archive's bytes.
@Suite(.timeLimit(.minutes(10))) struct ReplayRoutesTests {
    /// A server holding `devices`' whole logs.
    static func serve(_ devices: [Device]) async throws -> TestServer {
        let server = try await TestServer.start()
        for device in devices {
            let response = try await server.upload(try device.batch(), store: device.storeID)
            #expect(response.status == 200, "\(response.text)")
        }
        return server
    }

    static func path(_ device: Device, _ session: SessionID, _ tail: String = "") -> String {
        let id = session.rawValue.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? session.rawValue
        return "/v1/stores/\(device.storeID.uuidString)/sessions/\(id)\(tail)"
    }

    static func get<T: Decodable>(_ type: T.Type, _ server: TestServer, _ path: String) async throws -> T {
        let response = try await server.request("GET", path, key: server.app.readKey)
        guard response.status == 200 else { throw TestServer.UnexpectedResponse(response: response) }
        return try response.json(T.self)
    }

    /// Every endpoint against the engine, for every session of `device`.
    func expectSameAnswers(_ device: Device, server: TestServer) async throws {
        let engine = device.engine
        let sessions = try engine.sessions()
        #expect(!sessions.isEmpty)
        for info in sessions {
            let session = info.session
            // The session's listing.
            let listing = try await Self.get(SessionListing.self, server, Self.path(device, session))
            let head = try engine.store.read { try $0.record(at: info.headSequence) }
            #expect(listing == SessionListing(info, head: head))

            // History: the engine's entries, with the navigation stack after each.
            let rows = try await Self.get([HistoryRow].self, server, Self.path(device, session, "/history"))
            let entries = try engine.history(of: session)
            #expect(rows.map(\.version) == entries.map(\.version))
            #expect(rows.map(\.sequence) == entries.map(\.sequence))
            #expect(rows.map(\.time) == entries.map(\.timestamp.description))
            #expect(rows.map(\.event) == entries.map(\.event))
            #expect(rows.map(\.source) == entries.map(\.source))
            #expect(rows.map(\.target) == entries.map(\.target))
            #expect(rows.map(\.navigation) == entries.map { $0.navigation.map(\.description) })
            let coder = engine.store.coder
            #expect(rows == (try engine.store.read { try HistoryRow.rows(of: session, in: $0, coder: coder) }))
            // Filtered and limited, as the engine filters.
            if let event = entries.last?.event {
                let filtered = try await Self.get(
                    [HistoryRow].self, server,
                    Self.path(
                        device, session,
                        "/history?events=\(event.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? event)&limit=2"
                    ))
                #expect(
                    filtered.map(\.version)
                        == (try engine.history(of: session, filter: HistoryFilter(events: [event]), limit: 2)).map(
                            \.version))
            }
            let ranged = try await Self.get(
                [HistoryRow].self, server, Self.path(device, session, "/history?from=2&to=3"))
            #expect(
                ranged.map(\.version)
                    == (try engine.history(of: session, filter: HistoryFilter(versions: 2...3))).map(\.version))

            // The state at every version, and at the head when none is given.
            var cursor = try engine.replayCursor(for: session)
            for version in 0...info.headVersion {
                let point = try await Self.get(
                    ReplayPointReport.self, server, Self.path(device, session, "/state?version=\(version)"))
                #expect(
                    point
                        == ReplayPointReport(
                            try cursor.seek(to: version), machine: info.machine, versions: info.headVersion),
                    "\(session) at \(version)")
            }
            let atHead = try await Self.get(ReplayPointReport.self, server, Self.path(device, session, "/state"))
            #expect(atHead.version == info.headVersion)

            // Diffs: neighbours, the whole session, and backwards.
            for (from, to) in [(0, info.headVersion), (1, min(2, info.headVersion)), (info.headVersion, 1)] {
                let diff = try await Self.get(
                    ReplayDiffReport.self, server, Self.path(device, session, "/diff?from=\(from)&to=\(to)"))
                #expect(
                    diff == ReplayDiffReport(try engine.diff(session, from: UInt64(from), to: UInt64(to))),
                    "\(session) \(from)→\(to)")
            }

            // The archive, byte for byte.
            let archive = try await server.request(
                "GET", Self.path(device, session, "/archive"), key: server.app.readKey)
            #expect(archive.status == 200)
            #expect(archive.body == Array(try engine.exportSession(session)), "archive of \(session)")
        }
    }

    @Test func answersAsTheDeviceEngineDoes() async throws {
        let variety = try Device.withExamples()
        try await variety.runVariety()
        let migrated = try await Device.withMigratedSession()
        let server = try await Self.serve([variety, migrated])
        try await expectSameAnswers(variety, server: server)
        try await expectSameAnswers(migrated, server: server)
        try await server.stop()
    }

    @Test func verifiesAgainstAGivenDefinitionAsTheEngineDoes() async throws {
        let device = try Device.withExamples()
        try await device.runVariety()
        let server = try await Self.serve([device])
        // The same machine: clean. A machine without `reload`: the loading-view session diverges.
        typealias Loading = ExampleMachines.LoadingView
        let loading = Loading.definition
        let changed = MachineDefinition(loading.name) {
            StateNode(Loading.State.loading) {
                On(Loading.Event.loaded, to: Loading.State.ready)
                On(Loading.Event.failed, to: Loading.State.error)
            }
            StateNode(Loading.State.ready)
            StateNode(Loading.State.error) {
                On(Loading.Event.retry, to: Loading.State.loading)
            }
        }
        for definition in [loading, changed] {
            let machine = try Machine(definition)
            let response = try await server.request(
                "POST", Self.path(device, "lv-1", "/verify"), key: server.app.readKey,
                body: Array(definition.jsonDocument()))
            #expect(response.status == 200, "\(response.text)")
            let summary = try response.json(VerificationSummary.self)
            let expected = VerificationSummary([
                VerificationSummary.Row(try device.engine.verify("lv-1", against: machine), machine: loading.name)
            ])
            #expect(summary == expected)
            #expect((summary.diverged == 1) == (definition != loading))
        }
        let garbage = try await server.request(
            "POST", Self.path(device, "lv-1", "/verify"), key: server.app.readKey, body: Array("{\"name\": 3}".utf8))
        #expect(garbage.status == 400)
        try await server.stop()
    }

    @Test func aDefinitionPastTheBodyLimitIs413AsAnUploadIs() async throws {
        let server = try await TestServer.start(maximumBodyBytes: 512)
        let definition = Array(ExampleMachines.LoadingView.definition.jsonDocument())
        #expect(definition.count > 512)
        let response = try await server.request(
            "POST", "/v1/stores/\(UUID().uuidString)/sessions/any/verify", key: server.app.readKey, body: definition)
        #expect(response.status == 413)
        #expect(try response.object()["maximumBodyBytes"] as? Int == 512)
        try await server.stop()
    }

    @Test func errorsAreAnswersThatSayWhatWasWrong() async throws {
        let device = try Device()
        try await device.runOnboarding(["a"])
        let server = try await Self.serve([device])
        let unknown = try await server.request("GET", Self.path(device, "nobody", "/state"), key: server.app.readKey)
        #expect(unknown.status == 404)
        #expect(try unknown.object()["session"] as? String == "nobody")
        let past = try await server.request("GET", Self.path(device, "a", "/state?version=5"), key: server.app.readKey)
        #expect(past.status == 400)
        #expect(try past.object()["head"] as? Int == 4)
        #expect(past.text.contains("version 4"))
        let pastDiff = try await server.request(
            "GET", Self.path(device, "a", "/diff?from=1&to=9"), key: server.app.readKey)
        #expect(pastDiff.status == 400)
        #expect(try pastDiff.object()["head"] as? Int == 4)
        let notANumber = try await server.request(
            "GET", Self.path(device, "a", "/state?version=x"), key: server.app.readKey)
        #expect(notANumber.status == 400)
        #expect(try notANumber.object()["parameter"] as? String == "version")
        let noVersions = try await server.request("GET", Self.path(device, "a", "/diff"), key: server.app.readKey)
        #expect(noVersions.status == 400)
        // Keys: none, the ingestion key, and another app's read key (which sees no such session).
        #expect(try await server.request("GET", Self.path(device, "a", "/history")).status == 401)
        #expect(
            try await server.request("GET", Self.path(device, "a", "/history"), key: server.app.ingestKey).status == 403
        )
        let other = try await server.createApp()
        for tail in ["", "/history", "/state", "/diff?from=1&to=2", "/archive"] {
            #expect(
                try await server.request("GET", Self.path(device, "a", tail), key: other.readKey).status == 404,
                "\(tail)")
        }
        let otherList = try await server.request(
            "GET", "/v1/stores/\(device.storeID.uuidString)/sessions", key: other.readKey)
        #expect(try otherList.json(StoreSessionList.self).sessions.isEmpty)
        let list = try await server.request(
            "GET", "/v1/stores/\(device.storeID.uuidString)/sessions", key: server.app.readKey)
        #expect(try list.json(StoreSessionList.self).sessions.map(\.session) == ["a"])
        try await server.stop()
    }

    /// The archive streams: a session of 2,600 records (three pages of the reader) is sent in
    /// chunks as it is read, the device's export byte for byte, and a key allowed one request at a
    /// time has its turn again once the stream ended (a turn kept by the stream would make the
    /// next request wait its whole `keyWait`, then a 429).
    @Test func aLongSessionsArchiveStreamsTheDevicesBytesAndGivesTheKeysTurnBack() async throws {
        typealias Loading = ExampleMachines.LoadingView
        let device = try Device.withExamples()
        let session = try await device.engine.startSession(id: "long", machine: Loading.definition.name)
        while session.version < 2_600 {
            if session.configuration.first == Loading.State.loading.rawValue {
                _ = try await session.send(
                    Loading.Event.loaded, payload: Loading.Model(title: "page \(session.version)", items: ["a"]))
            } else {
                _ = try await session.send(Loading.Event.reload)
            }
        }
        let server = try await TestServer.start { $0.requestsPerKey = 1 }
        try await server.uploadAll(device, batchSize: 1_000)

        for _ in 0..<2 {
            let archive = try await server.request(
                "GET", Self.path(device, "long", "/archive"), key: server.app.readKey)
            #expect(archive.status == 200)
            #expect(archive.headers["transfer-encoding"] == "chunked")
            #expect(archive.headers["content-length"] == nil)
            #expect(archive.body == Array(try device.engine.exportSession("long")))
        }
        #expect(try await server.request("GET", "/v1/sessions", key: server.app.readKey).status == 200)
        try await server.stop()
    }
}

/// The body of `GET /v1/stores/{store}/sessions`.
struct StoreSessionList: Decodable {
    var sessions: [SessionListing]
}
