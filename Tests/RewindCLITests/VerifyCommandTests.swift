import Foundation
import Testing

/// `rewind verify [SESSION] [--definition FILE]`: recorded sessions re-run through a definition;
/// exit status 1 on a divergence, naming the version.
struct VerifyCommandTests {
    /// The Kanji definition as `rewind graph kanji --format json` prints it, changed by `edit`
    /// and written to `name` in the demo's directory.
    static func kanjiDefinition(
        in demo: DemoStore, named name: String, edit: (inout [[String: Any]]) -> Void
    ) async throws -> String {
        let text = try await demo.tool.text(["graph", "kanji", "--format", "json"])
        var document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var machine = try #require(document["machine"] as? [String: Any])
        var states = try #require(machine["states"] as? [[String: Any]])
        edit(&states)
        machine["states"] = states
        document["machine"] = machine
        let path = demo.file(name)
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The first version of `session` that enters `state`.
    static func firstVersion(entering state: String, of session: String, in demo: DemoStore) async throws -> UInt64? {
        let history = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", session])
        return history.first { $0.target.contains(state) }?.version
    }

    @Test func theDemoSessionsVerifyCleanlyAgainstTheirOwnMachines() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let report = try await demo.tool.json(CommandOutputs.Verify.self, ["verify"])
        let rows = report.sessions
        #expect(rows.count == demo.summary.totalSessions)
        // The totals the text shows.
        #expect(report.verifiedSessions == demo.summary.totalSessions)
        #expect(report.verifiedRecords == demo.summary.totalRecords)
        #expect(report.diverged == 0)
        #expect(rows.allSatisfy { $0.divergence == nil })
        #expect(rows.reduce(0) { $0 + $1.verifiedRecords } == demo.summary.totalRecords)
        // Piped (standard error is a file here), progress still shows, as lines on standard error.
        let piped = try await demo.tool.run(["verify"])
        #expect(
            piped.stderr.contains("verifying: \(demo.summary.totalSessions)/\(demo.summary.totalSessions) sessions"),
            "\(piped)")
        #expect(!piped.stdout.contains("verifying:"))
        let text = try await demo.tool.text(["verify"])
        #expect(
            text.contains(
                "verified \(demo.summary.totalSessions) sessions, \(demo.summary.totalRecords) records: 0 diverged"))

        let one = try #require(rows.first)
        let single = try await demo.tool.json(CommandOutputs.Verify.self, ["verify", one.session]).sessions
        #expect(single.map(\.session) == [one.session])
        #expect(single.first?.verifiedRecords == one.verifiedRecords)
    }

    @Test func aKanjiDefinitionWithoutTheListStateDivergesAtTheFirstVersionEnteringList() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let definition = try await Self.kanjiDefinition(in: demo, named: "kanji-without-list.json") { states in
            states.removeAll { $0["id"] as? String == "list" }
            for index in states.indices {
                states[index]["validNextStates"] = (states[index]["validNextStates"] as? [String])?.filter {
                    $0 != "list"
                }
            }
        }
        let kanji = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        var expected: [String: UInt64] = [:]
        for row in kanji {
            if let version = try await Self.firstVersion(entering: "list", of: row.session, in: demo) {
                expected[row.session] = version
            }
        }
        try #require(!expected.isEmpty, "no demo Kanji session entered list")

        let output = try await demo.tool.run(["verify", "--definition", definition])
        #expect(output.status == 1, "\(output)")
        let lines = output.stdout.split(separator: "\n")
        for (session, version) in expected {
            let line = lines.first { $0.hasPrefix("\(session) (kanji): ") }
            #expect(line?.contains("version \(version) ") == true, "\(session) should diverge at \(version): \(output)")
        }
        #expect(output.stdout.contains("verified \(kanji.count) sessions"))
        #expect(output.stdout.contains(": \(expected.count) diverged"))

        // One session, as JSON: its divergence names the version; the records before it verified.
        let (session, version) = try #require(expected.first)
        let json = try await demo.tool.run(["verify", session, "--definition", definition, "--json"])
        #expect(json.status == 1)
        let report = try JSONDecoder().decode(CommandOutputs.Verify.self, from: Data(json.stdout.utf8))
        #expect(report.diverged == 1 && report.verifiedSessions == 1)
        let rows = report.sessions
        #expect(rows.count == 1)
        #expect(rows.first?.verifiedRecords == version - 1)
        #expect(rows.first?.divergence?.contains("version \(version)") == true, "\(rows)")

        // A Kanji session that never entered list still verifies.
        if let clean = kanji.first(where: { expected[$0.session] == nil }) {
            let output = try await demo.tool.run(["verify", clean.session, "--definition", definition])
            #expect(output.status == 0, "\(output)")
        }
    }

    @Test func aDefinitionWithAChangedTargetDiverges() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        // detail may no longer go to list: the direct moves into list are now refused.
        let definition = try await Self.kanjiDefinition(in: demo, named: "kanji-detail-to-all-only.json") { states in
            for index in states.indices where states[index]["id"] as? String == "detail" {
                states[index]["validNextStates"] = ["all"]
            }
        }
        let kanji = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        var session: (String, UInt64)?
        for row in kanji {
            if let version = try await Self.firstVersion(entering: "list", of: row.session, in: demo) {
                session = (row.session, version)
                break
            }
        }
        let (id, version) = try #require(session)
        let output = try await demo.tool.run(["verify", id, "--definition", definition])
        #expect(output.status == 1, "\(output)")
        #expect(output.stdout.contains("\(id) (kanji): version \(version) "), "\(output)")
    }

    @Test func anUnreadableDefinitionOrUnknownSessionIsAOneLineError() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        expectOneLineError(
            try await demo.tool.run(["verify", "--definition", demo.file("missing.json")]), containing: ["missing.json"]
        )
        let text = demo.file("definition.txt")
        try Data("not a machine".utf8).write(to: URL(fileURLWithPath: text))
        expectOneLineError(try await demo.tool.run(["verify", "--definition", text]), containing: ["definition.txt"])
        let broken = demo.file("broken.json")
        try Data("{\"format\": \"rewind.machine\", ".utf8).write(to: URL(fileURLWithPath: broken))
        expectOneLineError(try await demo.tool.run(["verify", "--definition", broken]), containing: [])
        expectOneLineError(try await demo.tool.run(["verify", "nobody"]), containing: ["unknown session 'nobody'"])
    }

    @Test func verifyListsSessionsInTheOrderSessionsDoes() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let listed = try await demo.tool.sessionRows(["sessions"]).map(\.session)
        let verified = try await demo.tool.json(CommandOutputs.Verify.self, ["verify"]).sessions.map(\.session)
        #expect(verified == listed, "natural order: kanji-12 before kanji-102, in text and JSON alike")
        #expect(try #require(verified.firstIndex(of: "kanji-3")) < #require(verified.firstIndex(of: "kanji-12")))
    }
}
