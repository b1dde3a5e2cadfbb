import Foundation
import RewindTestSupport
import Testing

/// `rewind trim`: a session's history before a version goes, the state there becomes its base;
/// history, state and check begin at the base and say so.
struct TrimCommandTests {
    struct Report: Decodable {
        var session: String
        var firstVersion: UInt64
        var records: Int
        var notice: UInt64?
    }

    struct DryRun: Decodable {
        var session: String
        var firstVersion: UInt64
        var records: UInt64
    }

    @Test func trimsASessionAndItsHistoryBeginsAtTheBase() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let rows = try await demo.tool.sessionRows(["sessions"])
        let long = try #require(rows.max { $0.version < $1.version })
        #expect(long.version >= 4)
        let history = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", long.session])
        let base = long.version - 1

        // A dry run says what would go and changes nothing.
        let dryRun = try await demo.tool.json(DryRun.self, ["trim", long.session, "--keep", "2", "--dry-run"])
        #expect(dryRun.firstVersion == base)
        #expect(dryRun.records == base - 1)
        #expect(try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", long.session]) == history)

        let report = try await demo.tool.json(Report.self, ["trim", long.session, "--before", String(base)])
        #expect(report.firstVersion == base)
        #expect(report.records == Int(base - 1))
        #expect(report.notice != nil)

        // History begins at the base, with the same rows (stacks included) as before from there.
        let trimmed = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", long.session])
        #expect(trimmed == Array(history.drop { $0.version < base }))
        let text = try await demo.tool.text(["history", long.session])
        #expect(text.contains("history begins at version \(base)"), "\(text)")
        // Replay begins at the base, with the same steps as before from there.
        let steps = try await demo.tool.json([CommandOutputs.Point].self, ["replay", long.session])
        #expect(steps.map(\.version) == Array(base...long.version))
        // A state below the base says where history begins; at the base it is shown.
        expectOneLineError(
            try await demo.tool.run(["state", long.session, "--at", "1"]), containing: ["history begins at version"])
        #expect(try await demo.tool.run(["state", long.session, "--at", String(base)]).status == 0)
        // The viewer's page begins at the base (its versions labelled by their numbers, the
        // browser tests check), with its archive (format version 3) for the download.
        let page = FileManager.default.temporaryDirectory.appendingPathComponent("trim-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: page) }
        #expect(try await demo.tool.run(["view", long.session, "-o", page.path]).status == 0)
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains(#""base":\#(base)"#))
        #expect(html.contains(#"id="rw-archive""#))
        // Trimming again at the base removes nothing; below it is refused.
        #expect(try await demo.tool.json(Report.self, ["trim", long.session, "--before", String(base)]).records == 0)
        expectOneLineError(
            try await demo.tool.run(["trim", long.session, "--before", "1"]), containing: ["history begins at version"])
        let check = try await demo.tool.run(["check"])
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("sequences erased"), "\(check)")
    }

    @Test func aTrimmedSessionExportsImportsAndForksAtItsBase() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let rows = try await demo.tool.sessionRows(["sessions"])
        let long = try #require(rows.max { $0.version < $1.version })
        #expect(long.version >= 4)
        let base = long.version - 1
        _ = try await demo.tool.json(Report.self, ["trim", long.session, "--before", String(base)])
        let history = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", long.session])

        // The archive carries the base: the import begins there, with the same history.
        let file = demo.file("trimmed.ndjson")
        let exported = try await demo.tool.json(CommandOutputs.Archive.self, ["export", long.session, "-o", file])
        #expect(exported.records == 2)
        let imported = try await demo.tool.json(CommandOutputs.Archive.self, ["import", file, "--as", "copy"])
        #expect(imported.records == 2)
        // The same steps (the copy's records are at new sequences).
        let steps = { (rows: [CommandOutputs.HistoryRow]) in rows.map { "\($0.version) \($0.event) \($0.target)" } }
        #expect(
            steps(try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", "copy"])) == steps(history))
        let text = try await demo.tool.text(["history", "copy"])
        #expect(text.contains("history begins at version \(base)"), "\(text)")
        expectOneLineError(
            try await demo.tool.run(["state", "copy", "--at", "1"]), containing: ["history begins at version"])

        // A fork at the head begins at the base too; below the base it is refused, saying why.
        let fork = try await demo.tool.json(
            CommandOutputs.Fork.self, ["fork", long.session, "--at", String(long.version), "--as", "branch"])
        #expect(fork.session == "branch")
        #expect(
            steps(try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", "branch"])) == steps(history))
        expectOneLineError(
            try await demo.tool.run(["fork", long.session, "--at", "1", "--as", "below"]),
            containing: ["history begins at version"])
        let check = try await demo.tool.run(["check"])
        #expect(check.status == 0, "\(check)")
    }

    @Test func usageErrors() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let first = try #require(try await demo.tool.sessionRows(["sessions"]).first)
        expectUsageError(try await demo.tool.run(["trim", first.session]), containing: ["--before"])
        expectUsageError(
            try await demo.tool.run(["trim", first.session, "--before", "2", "--keep", "2"]), containing: ["--keep"])
        expectOneLineError(
            try await demo.tool.run(["trim", "nobody-by-that-name", "--before", "2"]),
            containing: ["nobody-by-that-name"])
        expectOneLineError(
            try await demo.tool.run(["trim", first.session, "--before", String(first.version + 1)]),
            containing: ["bad version"])
    }
}
