import Foundation
import Rewind
import RewindExamples
import RewindServer
import Testing

/// `POST /v1/machines/{machine}/upgrade-check` and `rewind upgrade-check --server`: the upgrade
/// check over every device's sessions in PostgreSQL answers what each device's engine answers for
/// its own store, streamed a page at a time.
@Suite struct UpgradeCheckRoutesTests {
    typealias Onboarding = ExampleMachines.Onboarding

    /// The onboarding without its last route (`loggedIn` into `home`): `home` is no state of it.
    static func withoutHome() -> MachineDefinition {
        let navigation = Dictionary(uniqueKeysWithValues: Onboarding.navigation.map { ($0.key.rawValue, $0.value) })
        return MachineDefinition(
            name: "onboarding", initial: "initial", routes: Array(Onboarding.routes.dropLast()), navigation: navigation)
    }

    /// A device with `count` onboarding sessions `prefix-N`, session N sent the first N % 4 events.
    static func device(_ prefix: String, sessions count: Int) async throws -> Device {
        let device = try Device()
        for index in 0..<count {
            let session = try await device.engine.startSession(
                id: SessionID("\(prefix)-\(index)"), machine: "onboarding")
            for event in Onboarding.Event.allCases.prefix(index % 4) { _ = try await session.send(event) }
        }
        return device
    }

    static func check(_ server: TestServer, _ definition: MachineDefinition, query: String = "") async throws
        -> HTTPTestResponse
    {
        try await server.request(
            "POST", "/v1/machines/onboarding/upgrade-check\(query)", key: server.app.readKey,
            body: Array(definition.jsonDocument()))
    }

    /// A row without the store it is in (what a device's own check lists).
    static func local(_ row: UpgradeCheckReport.Row) -> UpgradeCheckReport.Row {
        var row = row
        row.store = nil
        return row
    }

    @Test func theFleetCheckIsEveryDevicesCheckAcrossPages() async throws {
        // 130 sessions: more than one page of the check's reading.
        let devices = [try await Self.device("a", sessions: 70), try await Self.device("b", sessions: 60)]
        let server = try await ReplayRoutesTests.serve(devices)
        let definition = Self.withoutHome()
        let machine = try Machine(definition)

        let response = try await Self.check(server, definition, query: "?label=v2")
        #expect(response.status == 200, "\(response.text)")
        let fleet = try response.json(UpgradeCheckReport.self)
        #expect(fleet.checkedSessions > 100, "more than one page of the check's reading (100 sessions)")
        var expected = UpgradeCheckReport(
            label: "v2", machine: "onboarding", definition: definition.contentVersion, listLimit: 1_000)
        for device in devices {
            for row in try device.engine.upgradeCheck(of: "onboarding", against: machine).sessions {
                expected.add(row)
            }
        }
        #expect(fleet.checkedSessions == 130)
        // The whole report is the devices' reports summed: every total, the first divergences,
        // every row (but the store it names).
        var withoutStores = fleet
        withoutStores.sessions = fleet.sessions.map(Self.local).sorted { $0.session < $1.session }
        expected.sessions.sort { $0.session < $1.session }
        #expect(withoutStores == expected)
        #expect(fleet.unchanged == expected.unchanged && fleet.incompatible == expected.incompatible)
        #expect(fleet.diverging == expected.diverging && fleet.divergingEvents == expected.divergingEvents)
        // Sessions that reached home are incompatible, and diverge at `loggedIn`.
        let inHome = (0..<70).count { $0 % 4 == 3 } + (0..<60).count { $0 % 4 == 3 }
        #expect(fleet.incompatible == inHome && fleet.diverging == inHome)
        #expect(fleet.divergingEvents.map(\.event) == ["loggedIn"] && fleet.divergingEvents.map(\.sessions) == [inHome])
        #expect(
            fleet.description
                == "v2: 130 sessions of onboarding — \(130 - inHome) unchanged, 0 migrated, \(inHome) incompatible; "
                + "\(inHome) diverge, first at 'loggedIn' (\(inHome))")
        #expect(Set(fleet.sessions.map(Self.local)) == Set(expected.sessions))
        for (device, prefix) in zip(devices, ["a-", "b-"]) {
            let rows = fleet.sessions.filter { $0.session.hasPrefix(prefix) }
            #expect(rows.allSatisfy { $0.store == device.storeID.uuidString.lowercased() })
        }
        let home = try #require(fleet.sessions.first { $0.session == "a-3" })
        #expect(
            home.kind == .incompatible
                && home.problems?.contains { $0.state == "home" && $0.problem == "missing" } == true)
        #expect(home.divergence?.version == 4 && home.divergence?.event == "loggedIn")

        // Listing at most 5 of each kind: the totals are the same, the rest counted.
        let limited = try await Self.check(server, definition, query: "?limit=5")
        let short = try limited.json(UpgradeCheckReport.self)
        #expect(short.checkedSessions == 130 && short.incompatible == inHome)
        #expect(short.sessions.count == 10)
        #expect(short.unlisted == [.incompatible: inHome - 5, .unchanged: 130 - inHome - 5])
        try await server.stop()
    }

    @Test func badRequestsAreAnswersThatSayWhatWasWrong() async throws {
        let server = try await ReplayRoutesTests.serve([try await Self.device("a", sessions: 2)])
        let garbage = try await server.request(
            "POST", "/v1/machines/onboarding/upgrade-check", key: server.app.readKey, body: Array("{\"name\": 3}".utf8))
        #expect(garbage.status == 400)
        #expect(
            try garbage.json([String: String].self)["error"]?.contains("not a machine definition") == true,
            "\(garbage.text)")
        let noKey = try await server.request(
            "POST", "/v1/machines/onboarding/upgrade-check", body: Array(Onboarding.definition.jsonDocument()))
        #expect(noKey.status == 401)
        let ingestKey = try await server.request(
            "POST", "/v1/machines/onboarding/upgrade-check", key: server.app.ingestKey,
            body: Array(Onboarding.definition.jsonDocument()))
        #expect(ingestKey.status == 403)
        #expect(try ingestKey.json([String: String].self)["error"]?.contains("needs") == true, "\(ingestKey.text)")
        let badLimit = try await Self.check(server, Onboarding.definition, query: "?limit=x")
        #expect(badLimit.status == 400)
        #expect(try badLimit.json([String: String].self)["error"]?.contains("limit") == true, "\(badLimit.text)")
        // A machine the app has no session of: a 404 naming it, not a report that passes.
        let other = try await server.request(
            "POST", "/v1/machines/checkout/upgrade-check", key: server.app.readKey,
            body: Array(Onboarding.definition.jsonDocument()))
        #expect(other.status == 404, "\(other.text)")
        #expect(try other.json([String: String].self)["machine"] == "checkout", "\(other.text)")
        try await server.stop()
    }

    @Test func theCommandLineChecksTheFleetAsTheEndpointAnswers() async throws {
        let device = try await Self.device("a", sessions: 8)
        let server = try await ReplayRoutesTests.serve([device])
        let file = NSTemporaryDirectory() + "onboarding-v2-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data(Self.withoutHome().jsonDocument()).write(to: URL(fileURLWithPath: file))
        let remote = ["--server", "http://127.0.0.1:\(server.port)", "--key", server.app.readKey.token]

        let json = try await ServerCLITests.rewind(["upgrade-check", file, "--json"] + remote)
        #expect(json.status == 1, "\(json)")
        let report = try JSONDecoder().decode(UpgradeCheckReport.self, from: Data(json.output.utf8))
        #expect(report.checkedSessions == 8 && report.incompatible == 2)
        // The device's own check of its store lists the same sessions.
        let local = try await ServerCLITests.rewind(["upgrade-check", file, "--json", "--store", device.directory])
        #expect(local.status == 1, "\(local)")
        let own = try JSONDecoder().decode(UpgradeCheckReport.self, from: Data(local.output.utf8))
        #expect(report.sessions.map(Self.local) == own.sessions)

        let text = try await ServerCLITests.rewind(["upgrade-check", file] + remote)
        #expect(text.status == 1)
        #expect(
            text.output.hasPrefix(
                "\(URL(fileURLWithPath: file).lastPathComponent): 8 sessions of onboarding — 6 unchanged"))
        #expect(text.output.contains("(store \(device.storeID.uuidString.lowercased())):"), "\(text)")

        let withStore = try await ServerCLITests.rewind(
            ["upgrade-check", file, "--store", device.storeID.uuidString] + remote)
        #expect(withStore.status == 64, "\(withStore)")
        // A machine the app has no session of: an error naming it (exit 2), not a check that passes.
        let unknown = try await ServerCLITests.rewind(["upgrade-check", file, "--machine", "checkout"] + remote)
        #expect(unknown.status == 2 && unknown.errors.contains("no session of machine \"checkout\""), "\(unknown)")
        try await server.stop()
    }
}
