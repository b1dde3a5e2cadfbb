import Foundation
import Rewind
import RewindExamples
import RewindServer
import Testing

/// The query endpoints answer from the projections' states what the devices' own engines answer:
/// the session list with its filters and keyset paging, funnels over all devices, navigation
/// stacks and their depth statistics; bad parameters are typed 400s, unknown names 404s, and
/// another app sees nothing.
@Suite(.timeLimit(.minutes(10))) struct ProjectionRoutesTests {
    /// Two devices with mixed sessions, uploaded and folded.
    static func fleet(_ server: TestServer, devices count: Int = 2, records: Int = 90) async throws -> [Device] {
        var devices: [Device] = []
        for index in 0..<count {
            let device = try Device()
            try await device.runMixed(records: records, seed: 100 + UInt64(index), prefix: "d\(index)")
            try await server.uploadAll(device, batchSize: 25)
            try device.registerBuiltInProjections()
            devices.append(device)
        }
        try await server.waitUntilCaughtUp()
        return devices
    }

    /// Every session of the app, through every page.
    static func allSessions(_ server: TestServer, query: String = "", limit: Int = 1000) async throws -> [SessionPage
        .Summary]
    {
        var sessions: [SessionPage.Summary] = []
        var cursor: String?
        repeat {
            var path = "/v1/sessions?limit=\(limit)" + (query.isEmpty ? "" : "&\(query)")
            if let cursor { path += "&cursor=\(percentEncoded(cursor))" }
            let page = try await server.get(path).json(SessionPage.self)
            sessions += page.sessions
            cursor = page.nextCursor
        } while cursor != nil
        return sessions
    }

    @Test func sessionsAreFilteredByMachineStateStoreAndTime() async throws {
        let server = try await TestServer.start()
        let devices = try await Self.fleet(server)
        let all = try await Self.allSessions(server)
        var expected: [SessionPage.Summary] = []
        for device in devices {
            for (key, flow) in try device.engine.screenFlows.all() {
                let head = try #require(all.first { $0.storeID == device.storeID && $0.sessionID == key.rawValue })
                #expect(head.configuration == flow.configuration)
                #expect(head.headVersion == Int64(flow.version))
                #expect(head.lastRecordedAtMicroseconds == flow.updated.microsecondsSince1970)
                expected.append(head)
            }
        }
        #expect(all.count == expected.count)

        let kanji = try await Self.allSessions(server, query: "machine=kanji")
        #expect(Set(kanji) == Set(all.filter { $0.machine == "kanji" }))
        #expect(!kanji.isEmpty)
        for state in ["detail", "list", "initial", "greeting", "login", "home"] {
            let inState = try await Self.allSessions(server, query: "state=\(state)")
            var fromDevices = Set<String>()
            for device in devices {
                for id in try device.engine.screenFlows.sessions(inState: state) {
                    fromDevices.insert("\(device.storeID)/\(id.rawValue)")
                }
            }
            #expect(Set(inState.map { "\($0.storeID)/\($0.sessionID)" }) == fromDevices, "\(state)")
        }
        let one = try await Self.allSessions(
            server, query: "store=\(devices[1].storeID)&machine=onboarding&state=login")
        #expect(
            Set(one)
                == Set(
                    all.filter {
                        $0.storeID == devices[1].storeID && $0.machine == "onboarding"
                            && $0.configuration?.contains("login") == true
                    }))

        // Time range on the last update: `from` inclusive, `to` exclusive; µs or RFC 3339.
        let times = all.map(\.lastRecordedAtMicroseconds).sorted()
        let middle = times[times.count / 2]
        let later = try await Self.allSessions(server, query: "from=\(middle)")
        let earlier = try await Self.allSessions(server, query: "to=\(middle)")
        #expect(Set(later) == Set(all.filter { $0.lastRecordedAtMicroseconds >= middle }))
        #expect(Set(earlier) == Set(all.filter { $0.lastRecordedAtMicroseconds < middle }))
        #expect(later.count + earlier.count == all.count)
        #expect(
            try await Self.allSessions(server, query: "from=1970-01-01T00:00:00Z&to=2999-01-01T00:00:00.5%2B02:00")
                .count == all.count)
        #expect(try await Self.allSessions(server, query: "to=2000-01-01T00:00:00Z").isEmpty)
        try await server.stop()
    }

    @Test func pagesAreStableWhileOtherDevicesUpload() async throws {
        let server = try await TestServer.start()
        let devices = try await Self.fleet(server, records: 40)
        let before = try await Self.allSessions(server)
        // Page by 3 while new devices' sessions arrive between pages: every session held before
        // comes exactly once, in order.
        var seen: [SessionPage.Summary] = []
        var cursor: String?
        var uploads = 0
        repeat {
            let path = "/v1/sessions?limit=3" + (cursor.map { "&cursor=\(percentEncoded($0))" } ?? "")
            let page = try await server.get(path).json(SessionPage.self)
            #expect(page.sessions.count <= 3)
            seen += page.sessions
            cursor = page.nextCursor
            if uploads < 4 {
                let newcomer = try Device()
                try await newcomer.runMixed(records: 12, seed: 900 + UInt64(uploads), prefix: "new")
                try await server.uploadAll(newcomer)
                uploads += 1
            }
        } while cursor != nil
        let keys = seen.map { "\($0.storeID.uuidString.lowercased())/\($0.sessionID)" }
        #expect(Set(keys).count == keys.count, "a session came twice")
        #expect(
            Set(before.map { "\($0.storeID)/\($0.sessionID)" }).isSubset(
                of: Set(seen.map { "\($0.storeID)/\($0.sessionID)" })))
        let stores = seen.map { $0.storeID.uuidString.lowercased() }
        #expect(stores == stores.sorted(), "pages in store order")
        _ = devices
        try await server.stop()
    }

    /// The sum of the devices' funnels of `machine`.
    static func summedFunnel(_ devices: [Device], machine: String) throws -> FunnelBody {
        var sum = FunnelBody(machine: machine, sessions: 0, reached: [:], stoppedAt: [:])
        for device in devices {
            let funnel = try device.engine.screenFlows.funnel(machine: machine)
            sum.sessions += funnel.sessions
            sum.reached.merge(funnel.reached, uniquingKeysWith: +)
            sum.stoppedAt.merge(funnel.stoppedAt, uniquingKeysWith: +)
        }
        return sum
    }

    @Test func funnelsAreTheSumOfTheDevicesFunnels() async throws {
        let server = try await TestServer.start()
        let devices = try await Self.fleet(server, devices: 3)
        for machine in ["onboarding", "kanji"] {
            let funnel = try await server.get("/v1/machines/\(machine)/funnel").json(FunnelBody.self)
            #expect(funnel == (try Self.summedFunnel(devices, machine: machine)), "\(machine)")
            #expect(funnel.sessions > 0)
        }
        // A range: only the sessions last updated in it.
        let all = try await Self.allSessions(server, query: "machine=kanji")
        let middle = all.map(\.lastRecordedAtMicroseconds).sorted()[all.count / 2]
        let recent = try await server.get("/v1/machines/kanji/funnel?from=\(middle)").json(FunnelBody.self)
        #expect(recent.sessions == all.filter { $0.lastRecordedAtMicroseconds >= middle }.count)
        let none = try await server.get("/v1/machines/kanji/funnel?to=2000-01-01T00:00:00Z").json(FunnelBody.self)
        #expect(none == FunnelBody(machine: "kanji", sessions: 0, reached: [:], stoppedAt: [:]))
        try await server.stop()
    }

    @Test func stacksAreTheDevicesStacks() async throws {
        let server = try await TestServer.start()
        let devices = try await Self.fleet(server)
        var histogram: [Int: Int] = [:]
        for device in devices {
            for (key, stack) in try device.engine.navigationStacks.all() {
                let body = try await server.get(
                    "/v1/stores/\(device.storeID)/sessions/\(percentEncoded(key.rawValue))/stack"
                )
                .json(StackBody.self)
                #expect(body.entries.map(\.screen) == stack.screens, "\(key)")
                #expect(body.entries.map(\.data) == stack.entries.map(\.data), "\(key)")
                #expect(body.depth == stack.count)
            }
            let statistics = try device.engine.navigationStacks.depthStatistics(machine: "kanji")
            histogram.merge(statistics.histogram, uniquingKeysWith: +)
        }
        #expect(histogram.keys.contains { $0 > 1 }, "the walk pushed")
        let stacks = try await server.get("/v1/machines/kanji/stacks").json(StacksBody.self)
        #expect(stacks.histogram == Dictionary(uniqueKeysWithValues: histogram.map { (String($0.key), $0.value) }))
        #expect(stacks.sessions == histogram.values.reduce(0, +))
        #expect(stacks.maximum == histogram.keys.max())
        // A session whose stack holds data, with an id that needs percent-encoding.
        let odd = try Device()
        var generator = SeededGenerator(state: 7)
        try await odd.runKanji("a b/ü?#%", records: 6, using: &generator)
        try await server.uploadAll(odd)
        try await server.waitUntilCaughtUp()
        try odd.registerBuiltInProjections()
        let stack = try #require(try odd.engine.navigationStacks.stack(of: SessionID("a b/ü?#%")))
        let body = try await server.get("/v1/stores/\(odd.storeID)/sessions/\(percentEncoded("a b/ü?#%"))/stack").json(
            StackBody.self)
        #expect(body.entries.map(\.screen) == stack.screens)
        #expect(body.entries.map(\.data) == stack.entries.map(\.data))
        try await server.stop()
    }

    @Test func badParametersAreTyped400sAndUnknownNames404s() async throws {
        let server = try await TestServer.start()
        let devices = try await Self.fleet(server, devices: 1, records: 20)
        let cases: [(String, String)] = [
            ("/v1/sessions?from=yesterday", "from"), ("/v1/sessions?to=2026-13-01T00:00:00Z", "to"),
            ("/v1/sessions?from=10&to=5", "from"), ("/v1/sessions?cursor=%21%21", "cursor"),
            ("/v1/sessions?cursor=AAAA", "cursor"), ("/v1/sessions?limit=0", "limit"),
            ("/v1/sessions?store=x", "store"),
            ("/v1/sessions?state=", "state"), ("/v1/machines/kanji/funnel?from=x", "from"),
        ]
        for (path, parameter) in cases {
            let response = try await server.request("GET", path, key: server.app.readKey)
            #expect(response.status == 400, "\(path)")
            let body = try response.object()
            #expect(body["parameter"] as? String == parameter, "\(path): \(body)")
            #expect((body["error"] as? String)?.isEmpty == false)
        }
        for path in [
            "/v1/machines/nothing/funnel", "/v1/machines/nothing/stacks",
            "/v1/stores/\(devices[0].storeID)/sessions/nobody/stack",
            "/v1/stores/\(UUID())/sessions/d0-0/stack",
        ] {
            let response = try await server.request("GET", path, key: server.app.readKey)
            #expect(response.status == 404, "\(path)")
            #expect(try response.object()["error"] is String)
        }
        // Hostile names are values, never SQL.
        for name in ["kanji' OR '1'='1", "kanji'; DROP TABLE projection_states; --"] {
            let response = try await server.request(
                "GET", "/v1/machines/\(percentEncoded(name))/funnel", key: server.app.readKey)
            #expect(response.status == 404, "\(name)")
        }
        #expect(try await server.database.count("projection_states") > 0)
        // The ingestion key reads nothing.
        #expect(try await server.request("GET", "/v1/machines/kanji/funnel", key: server.app.ingestKey).status == 403)
        #expect(try await server.request("GET", "/v1/projections/status").status == 401)
        try await server.stop()
    }

    @Test func anotherAppsReadKeySeesNothing() async throws {
        let server = try await TestServer.start()
        let devices = try await Self.fleet(server, devices: 1, records: 30)
        let other = try await server.createApp()
        let session = try #require(try await Self.allSessions(server).first)
        for path in [
            "/v1/machines/kanji/funnel", "/v1/machines/onboarding/stacks",
            "/v1/stores/\(devices[0].storeID)/sessions/\(percentEncoded(session.sessionID))/stack",
        ] {
            #expect(try await server.request("GET", path, key: server.app.readKey).status == 200, "\(path)")
            #expect(try await server.request("GET", path, key: other.readKey).status == 404, "\(path)")
        }
        let list = try await server.get("/v1/sessions?store=\(devices[0].storeID)", key: other.readKey).json(
            SessionPage.self)
        #expect(list.sessions.isEmpty)
        let status = try await server.get("/v1/projections/status", key: other.readKey).json(ProjectionStatusBody.self)
        #expect(status.projections.allSatisfy { $0.stores == 0 && $0.lag == 0 })
        try await server.stop()
    }
}
