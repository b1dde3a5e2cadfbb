import Foundation
import Rewind
import RewindBaseTestSupport
import RewindExamples
import RewindServer
import RewindWire
import Testing

/// `rewind sessions|history|state|diff --server URL --key KEY [--store ID]`: the built `rewind`
/// reads from a real server what it reads from the device's own store, and prints the same.
@Suite(.timeLimit(.minutes(10))) struct ServerCLITests {
    /// What a run of `rewind` printed and how it ended.
    struct Run: Equatable, CustomStringConvertible {
        var status: Int32
        var output: String
        var errors: String
        var description: String { "exit \(status)\n\(output)\n\(errors)" }
    }

    /// Runs the built `rewind` with `arguments` to its end (killed if the test is cancelled, as by
    /// the suite's time limit).
    static func rewind(_ arguments: [String]) async throws -> Run {
        let run = try await runProcess(
            try ExecutableTests.executable(named: "rewind"), arguments: arguments,
            environment: ["LANG": "C.UTF-8", "TERM": "dumb"], signalOnCancel: SIGKILL)
        return Run(status: run.status, output: run.stdout, errors: run.stderr)
    }

    /// `arguments` run on the device's store and on the server: the same output and exit.
    func expectSame(_ arguments: [String], device: Device, server: TestServer, naming store: Bool = true) async throws {
        let local = try await Self.rewind(arguments + ["--store", device.directory])
        var remoteArguments =
            arguments + ["--server", "http://127.0.0.1:\(server.port)", "--key", server.app.readKey.token]
        if store { remoteArguments += ["--store", device.storeID.uuidString] }
        let remote = try await Self.rewind(remoteArguments)
        #expect(remote == local, "rewind \(arguments.joined(separator: " "))")
    }

    @Test func readsFromTheServerAsFromTheLocalStore() async throws {
        let device = try Device.withExamples()
        try await device.runVariety()
        let server = try await ReplayRoutesTests.serve([device])
        for json in [[], ["--json"]] {
            try await expectSame(["sessions"] + json, device: device, server: server)
            try await expectSame(
                ["sessions", "--machine", "kanji", "--limit", "1"] + json, device: device, server: server)
            for session in ["kanji-1", "kanji-fork", "lv-1", "ob-1"] {
                try await expectSame(["history", session] + json, device: device, server: server)
                try await expectSame(["state", session] + json, device: device, server: server)
                try await expectSame(["state", session, "--at", "2"] + json, device: device, server: server)
                try await expectSame(["diff", session, "1", "3"] + json, device: device, server: server)
                // Version 0, before the first record: one rule on both sides (the server answers it).
                try await expectSame(["state", session, "--at", "0"] + json, device: device, server: server)
                try await expectSame(["diff", session, "0", "2"] + json, device: device, server: server)
                #expect(
                    try await Self.rewind(["state", session, "--at", "0", "--store", device.directory] + json).status
                        == 0)
            }
            try await expectSame(["history", "lv-1", "--event", "loaded"] + json, device: device, server: server)
            try await expectSame(["history", "kanji-1", "--state", "list"] + json, device: device, server: server)
            // Without --store: the one store of the app that has the session.
            try await expectSame(["state", "lv-1"] + json, device: device, server: server, naming: false)
        }
        let local = try await Self.rewind(["sessions", "--json", "--store", device.directory])
        #expect(local.status == 0 && local.output.contains("kanji-fork"))
        try await server.stop()
    }

    /// A row of `rewind sessions --server … --json` without `--store`.
    struct FleetRow: Decodable {
        var store: String
        var session: String
    }

    @Test func sessionsAreFoundInEveryStoreAndListedPastTheFirstPage() async throws {
        // 1,005 sessions in one store: "s-999" sorts after 1,000 of them (ids compare as text),
        // so it is past the first page of `GET /v1/sessions` whatever the stores' order.
        let crowded = try Device()
        try await crowded.runOnboarding((0..<1_005).map { "s-\($0)" } + ["shared"])
        let others = try (0..<2).map { _ in try Device() }
        for device in others { try await device.runOnboarding(["shared"]) }
        let server = try await ReplayRoutesTests.serve([crowded] + others)
        let flags = ["--server", "http://127.0.0.1:\(server.port)", "--key", server.app.readKey.token]
        for json in [[], ["--json"]] {
            try await expectSame(["state", "s-999"] + json, device: crowded, server: server, naming: false)
            try await expectSame(["history", "s-999"] + json, device: crowded, server: server, naming: false)
        }
        // A session three stores hold: the error names each of them.
        let shared = try await Self.rewind(["state", "shared"] + flags)
        #expect(shared.status != 0)
        #expect(shared.errors.contains("several device stores"), "\(shared)")
        for device in [crowded] + others {
            #expect(shared.errors.contains(device.storeID.uuidString.lowercased()), "\(shared)")
        }
        // The fleet listing reads every page; --limit cuts it and the text says more exist.
        let all = try await Self.rewind(["sessions", "--json"] + flags)
        let rows = try JSONDecoder().decode([FleetRow].self, from: Data(all.output.utf8))
        #expect(rows.count == 1_008)
        #expect(Set(rows.map(\.session)).count == 1_006)
        #expect(rows.filter { $0.session == "shared" }.count == 3)
        let limited = try await Self.rewind(["sessions", "--json", "--limit", "1001"] + flags)
        #expect(try JSONDecoder().decode([FleetRow].self, from: Data(limited.output.utf8)).count == 1_001)
        let text = try await Self.rewind(["sessions", "--limit", "1001"] + flags)
        #expect(text.output.contains("(the first 1001 sessions; the server has more"), "\(text)")
        let whole = try await Self.rewind(["sessions", "--limit", "1008"] + flags)
        #expect(!whole.output.contains("the server has more"), "\(whole)")
        try await server.stop()
    }

    @Test func aHistoryLongerThanAPageIsReadPageByPage() async throws {
        typealias Loading = ExampleMachines.LoadingView
        let device = try Device.withExamples()
        let session = try await device.engine.startSession(id: "long", machine: Loading.definition.name)
        // 1,204 versions: more than one of the server's pages of 1,000 history rows.
        for index in 0..<601 {
            _ = try await session.send(Loading.Event.loaded, payload: Loading.Model(title: "page \(index)", items: []))
            _ = try await session.send(Loading.Event.reload)
        }
        #expect(session.version == 1_203)
        let server = try await ReplayRoutesTests.serve([device])
        let firstPage = try await ReplayRoutesTests.get(
            [HistoryRow].self, server, ReplayRoutesTests.path(device, "long", "/history"))
        #expect(firstPage.count == 1_000)
        for json in [[], ["--json"]] {
            try await expectSame(["history", "long"] + json, device: device, server: server)
            try await expectSame(["history", "long", "--event", "reload"] + json, device: device, server: server)
        }
        try await server.stop()
    }

    @Test func viewRendersTheServersSessionAsTheLocalOne() async throws {
        let device = try Device.withExamples()
        try await device.runVariety()
        let server = try await ReplayRoutesTests.serve([device])
        let directory = NSTemporaryDirectory() + "rewind-view-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for session in ["kanji-fork", "lv-1"] {
            let local = try await Self.rewind([
                "view", session, "-o", "\(directory)/local.html", "--store", device.directory,
            ])
            let remote = try await Self.rewind([
                "view", session, "-o", "\(directory)/remote.html", "--server", "http://127.0.0.1:\(server.port)",
                "--key", server.app.readKey.token, "--store", device.storeID.uuidString,
            ])
            #expect(local.status == 0, "\(local)")
            #expect(remote.status == 0, "\(remote)")
            let localPage = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/local.html"))
            let remotePage = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/remote.html"))
            #expect(!localPage.isEmpty)
            #expect(remotePage == localPage, "the page of \(session)")
        }
        try await server.stop()
    }

    @Test func reportsErrorsAsForTheLocalStore() async throws {
        let device = try Device()
        try await device.runOnboarding(["a"])
        let server = try await ReplayRoutesTests.serve([device])
        try await expectSame(["history", "nobody"], device: device, server: server)
        try await expectSame(["state", "a", "--at", "9"], device: device, server: server)
        try await expectSame(["diff", "a", "0", "2"], device: device, server: server)
        let badKey = try await Self.rewind([
            "state", "a", "--server", "http://127.0.0.1:\(server.port)", "--key", "rewind_read_nope", "--store",
            device.storeID.uuidString,
        ])
        #expect(badKey.status != 0)
        #expect(badKey.errors.contains("401"))
        let notAStoreID = try await Self.rewind([
            "state", "a", "--server", "http://127.0.0.1:\(server.port)", "--key", server.app.readKey.token, "--store",
            device.directory,
        ])
        #expect(notAStoreID.status != 0)
        #expect(notAStoreID.errors.contains("a UUID"))
        let fleet = try await Self.rewind([
            "sessions", "--server", "http://127.0.0.1:\(server.port)", "--key", server.app.readKey.token, "--json",
        ])
        #expect(fleet.status == 0)
        #expect(fleet.output.contains(device.storeID.uuidString.lowercased()))
        try await server.stop()
    }
}
