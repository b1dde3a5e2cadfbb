import Foundation
import Rewind
import RewindTestSupport
import Testing

/// `rewind upgrade-check DEFINITION`: the demo store's sessions checked against a new definition;
/// totals first, the sessions by kind, `--json`, and an exit status a release gate can use.
struct UpgradeCheckCommandTests {
    /// The Kanji definition without its `list` state (see ``VerifyCommandTests``).
    static func kanjiWithoutList(in demo: DemoStore) async throws -> String {
        try await VerifyCommandTests.kanjiDefinition(in: demo, named: "kanji-without-list.json") { states in
            states.removeAll { $0["id"] as? String == "list" }
            for index in states.indices {
                states[index]["validNextStates"] = (states[index]["validNextStates"] as? [String])?.filter {
                    $0 != "list"
                }
            }
        }
    }

    /// Runs `upgrade-check ARGUMENTS --json`, expecting exit status `status`, and decodes the report.
    static func report(_ arguments: [String], in demo: DemoStore, status: Int32) async throws -> UpgradeCheckReport {
        let output = try await demo.tool.run(["upgrade-check"] + arguments + ["--json"])
        #expect(output.status == status, "\(output)")
        return try JSONDecoder().decode(UpgradeCheckReport.self, from: Data(output.stdout.utf8))
    }

    @Test func theDemoSessionsPassAgainstTheirOwnMachine() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let kanji = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        let report = try await Self.report(["kanji"], in: demo, status: 0)
        #expect(report.checkedSessions == kanji.count && report.unchanged == kanji.count)
        #expect(report.diverging == 0 && report.incompatible == 0 && report.passes)
        #expect(report.sessions.map(\.session) == kanji.map(\.session), "listed in the order `sessions` lists them")

        let text = try await demo.tool.run(["upgrade-check", "kanji"])
        #expect(text.status == 0, "\(text)")
        let lines = text.stdout.split(separator: "\n")
        #expect(
            lines.first
                == "kanji: \(kanji.count) sessions of kanji — \(kanji.count) unchanged, 0 migrated, 0 incompatible; 0 diverge"
        )
        #expect(lines.last == "passes: every session resumes and reproduces its recording")
    }

    @Test func aDefinitionWithoutAStateNamesTheSessionsInItAndWhereTheOthersDiverge() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let definition = try await Self.kanjiWithoutList(in: demo)
        let kanji = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        // Incompatible: in list, or with list on the navigation stack.
        var inList: Set<String> = []
        for row in kanji {
            let point = try await demo.tool.json(CommandOutputs.Point.self, ["state", row.session])
            if point.configuration.contains("list") || point.navigationStack.contains(where: { $0.screen == "list" }) {
                inList.insert(row.session)
            }
        }
        var entered: [String: UInt64] = [:]
        for row in kanji {
            if let version = try await VerifyCommandTests.firstVersion(entering: "list", of: row.session, in: demo) {
                entered[row.session] = version
            }
        }
        try #require(!inList.isEmpty, "no demo Kanji session is in list or has it on its stack")

        let report = try await Self.report([definition], in: demo, status: 1)
        #expect(report.label == "kanji-without-list.json")
        #expect(report.checkedSessions == kanji.count)
        #expect(report.incompatible == inList.count)
        #expect(report.unchanged == kanji.count - inList.count)
        #expect(report.diverging == entered.count)
        #expect(!report.passes(allowingDivergence: true))
        for row in report.sessions where inList.contains(row.session) {
            #expect(row.kind == .incompatible)
            #expect(row.problems?.contains { $0.state == "list" && $0.problem == "missing" } == true, "\(row)")
        }
        for (session, version) in entered {
            let row = try #require(report.sessions.first { $0.session == session })
            #expect(row.divergence?.version == version, "\(session) first enters list at \(version)")
        }
        // Unchanged sessions that reproduce their recording are counted, and listed in JSON.
        #expect(report.sessions.count == kanji.count)

        // The text: totals first, then the incompatible sessions with what is missing.
        let text = try await demo.tool.run(["upgrade-check", definition])
        #expect(text.status == 1)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.hasPrefix("kanji-without-list.json: \(kanji.count) sessions of kanji — ") == true, "\(text)")
        #expect(
            lines.first?.contains("\(inList.count) incompatible; \(entered.count) diverge, first at ") == true,
            "\(text)")
        #expect(lines.contains("incompatible (\(inList.count)):"), "\(text)")
        let someone = try #require(inList.first)
        #expect(
            lines.contains { $0.hasPrefix("  \(someone): ") && $0.contains("'list'") && $0.contains("is missing") },
            "\(text)")
        #expect(lines.last?.hasPrefix("does not pass: \(inList.count) incompatible") == true, "\(text)")
    }

    @Test func divergencesAloneFailUnlessAllowed() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        // detail may no longer go to list: every state is still there, but the moves into list are refused.
        let definition = try await VerifyCommandTests.kanjiDefinition(in: demo, named: "kanji-v2.json") { states in
            for index in states.indices where states[index]["id"] as? String == "detail" {
                states[index]["validNextStates"] = ["all"]
            }
        }
        let strict = try await Self.report([definition], in: demo, status: 1)
        #expect(strict.incompatible == 0 && strict.diverging > 0)
        #expect(strict.sessions.filter { $0.kind == .diverging }.count == strict.diverging)
        let allowed = try await Self.report([definition, "--allow-divergence"], in: demo, status: 0)
        #expect(allowed.diverging == strict.diverging)
    }

    @Test func aBadDefinitionOrUnknownMachineIsAOneLineError() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        expectOneLineError(
            try await demo.tool.run(["upgrade-check", demo.file("missing.json")]), containing: ["missing.json"])
        let broken = demo.file("broken.json")
        try Data("{\"format\": \"rewind.machine\", ".utf8).write(to: URL(fileURLWithPath: broken))
        expectOneLineError(
            try await demo.tool.run(["upgrade-check", broken]), containing: ["broken.json", "not a machine definition"])
        let damaged = demo.file("damaged.scxml")
        try Data("<scxml xmlns=\"http://www.w3.org/2005/07/scxml\"><state id=".utf8).write(
            to: URL(fileURLWithPath: damaged))
        expectOneLineError(try await demo.tool.run(["upgrade-check", damaged]), containing: ["damaged.scxml"])
        let invalid = try await VerifyCommandTests.kanjiDefinition(in: demo, named: "kanji-invalid.json") { states in
            states[0]["validNextStates"] = ["nowhere"]
        }
        expectOneLineError(
            try await demo.tool.run(["upgrade-check", invalid]), containing: ["kanji-invalid.json", "nowhere"])
        expectOneLineError(try await demo.tool.run(["upgrade-check", "nope"]), containing: ["unknown machine 'nope'"])
    }

    @Test func aDefinitionOfAMachineWithoutSessionsPassesAndSaysSo() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let definition = try await VerifyCommandTests.kanjiDefinition(in: demo, named: "kanji.json") { _ in }
        let output = try await demo.tool.run(["upgrade-check", definition, "--machine", "checkout"])
        #expect(output.status == 0, "\(output)")
        #expect(output.stderr.contains("no session of machine 'checkout'"), "\(output)")
        #expect(output.stdout.hasPrefix("kanji.json: 0 sessions of checkout — 0 unchanged"), "\(output)")
    }

    /// `rewind view --machine kanji --upgrade-check FILE`: the machine page holds the report
    /// `upgrade-check --json` prints, and says of each session what the text says.
    @Test func theMachinePageShowsTheSameReport() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let definition = try await Self.kanjiWithoutList(in: demo)
        let report = try await Self.report([definition], in: demo, status: 1)
        let text = try await demo.tool.run(["upgrade-check", definition])
        let path = demo.file("kanji-upgrade.html")
        let output = try await demo.tool.run(["view", "--machine", "kanji", "--upgrade-check", definition, "-o", path])
        #expect(output.status == 0, "\(output)")

        let shown = try #require(
            try ViewerPageData.machinePage(Data(contentsOf: URL(fileURLWithPath: path))).upgradeCheck)
        var sorted = shown.report
        sorted.sessions = report.sessions.compactMap { row in shown.report.sessions.first { $0.session == row.session }
        }
        #expect(sorted == report)
        #expect(text.stdout.hasPrefix(shown.summary + "\n"), "\(text)")
        #expect(!shown.passes)
        for (row, detail) in zip(shown.report.sessions, shown.details) where row.kind != .unchanged {
            #expect(text.stdout.contains("  \(row.session): \(detail)\n"), "\(row.session): \(detail)")
        }

        let lonely = try await demo.tool.run(["view", "kanji-3", "--upgrade-check", definition])
        #expect(lonely.status == 64 && lonely.stderr.contains("--upgrade-check goes with --machine NAME"), "\(lonely)")
        expectOneLineError(
            try await demo.tool.run([
                "view", "--machine", "kanji", "--upgrade-check", demo.file("missing.json"), "-o", path,
            ]),
            containing: ["missing.json"])
    }
}
