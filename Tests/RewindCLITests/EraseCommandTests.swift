import Foundation
import RewindTestSupport
import Testing

/// `rewind erase`: erases sessions by id or prefix, refuses them afterwards, leaves the rest.
struct EraseCommandTests {
    struct Report: Decodable {
        var sessions: [String]
        var records: Int
        var notice: UInt64?
    }

    struct DryRun: Decodable {
        var sessions: [String]
    }

    @Test func erasesBySessionAndByPrefixAndTheRestStaysConsistent() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let rows = try await demo.tool.sessionRows(["sessions"])
        let first = try #require(rows.first)
        let history = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", first.session])

        let report = try await demo.tool.json(Report.self, ["erase", first.session])
        #expect(report.sessions == [first.session])
        #expect(report.records == history.count)
        #expect(report.notice == 1)
        expectOneLineError(try await demo.tool.run(["history", first.session]), containing: ["was erased at"])
        expectOneLineError(try await demo.tool.run(["state", first.session]), containing: ["was erased at"])

        // A prefix: a dry run lists and changes nothing; the erase takes exactly those.
        let machine = first.machine
        let prefixed = rows.map(\.session).filter { $0.hasPrefix(machine) && $0 != first.session }.sorted()
        #expect(!prefixed.isEmpty)
        let dryRun = try await demo.tool.json(DryRun.self, ["erase", "--prefix", machine, "--dry-run"])
        #expect(dryRun.sessions == prefixed)
        #expect(try await demo.tool.sessionRows(["sessions"]).count == rows.count - 1)
        let text = try await demo.tool.text(["erase", "--prefix", machine])
        #expect(text.hasPrefix("erased \(prefixed.count) sessions ("), "\(text)")
        let remaining = try await demo.tool.sessionRows(["sessions"])
        #expect(remaining.count == rows.count - 1 - prefixed.count)
        #expect(remaining.allSatisfy { !$0.session.hasPrefix(machine) })

        let check = try await demo.tool.run(["check"])
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("sequences erased"), "\(check)")
    }

    @Test func anUnknownSessionErasesNothingAndSelectorsAreRequired() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let before = try await demo.tool.sessionRows(["sessions"])
        let first = try #require(before.first)
        expectOneLineError(
            try await demo.tool.run(["erase", first.session, "nobody-by-that-name"]),
            containing: ["nobody-by-that-name"])
        #expect(try await demo.tool.sessionRows(["sessions"]).count == before.count)
        expectUsageError(try await demo.tool.run(["erase"]), containing: ["name the sessions to erase"])
        expectUsageError(try await demo.tool.run(["erase", "--prefix", ""]), containing: ["--prefix"])
        expectUsageError(try await demo.tool.run(["erase", "--context", "userID"]), containing: ["path=value"])
    }
}
