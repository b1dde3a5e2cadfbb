import Foundation
import Rewind
import RewindTestSupport
import RewindWire
import Testing

/// `rewind export`, `rewind import` and `rewind fork`: sessions out to a file, back in (all or
/// nothing), and branched from a past version.
struct ArchiveCommandTests {
    /// What a session's history says, without the store-wide sequence numbers and times that
    /// differ between a session and its copy.
    static func steps(_ history: [CommandOutputs.HistoryRow]) -> [String] {
        history.map { "\($0.version) \($0.event) \($0.source) → \($0.target) \($0.navigation)" }
    }

    /// The longest Kanji session of the demo.
    static func longestKanji(in demo: DemoStore) async throws -> CommandOutputs.SessionRow {
        let sessions = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        return try #require(sessions.max { $0.version < $1.version })
    }

    @Test func anExportedSessionImportsUnderANewIdWithTheSameHistoryAndStates() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let row = try await Self.longestKanji(in: demo)
        let file = demo.file("session.ndjson")
        let exported = try await demo.tool.json(CommandOutputs.Archive.self, ["export", row.session, "-o", file])
        #expect(exported.session == row.session)
        #expect(exported.records == row.version)
        #expect(exported.file == file)
        #expect(FileManager.default.fileExists(atPath: file))

        let imported = try await demo.tool.json(CommandOutputs.Archive.self, ["import", file, "--as", "copy"])
        #expect(imported.session == "copy")
        #expect(imported.records == row.version)
        let original = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", row.session])
        let copy = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", "copy"])
        #expect(Self.steps(copy) == Self.steps(original))
        let originalState = try await demo.tool.json(CommandOutputs.Point.self, ["state", row.session])
        let copyState = try await demo.tool.json(CommandOutputs.Point.self, ["state", "copy"])
        #expect(copyState.navigationStack == originalState.navigationStack)
        #expect(copyState.activeStates == originalState.activeStates)
        let sessions = try await demo.tool.sessionRows(["sessions"])
        #expect(sessions.count == demo.summary.totalSessions + 1)
        let verified = try await demo.tool.run(["verify", "copy"])
        #expect(verified.status == 0, "\(verified)")

        // The text forms say the same.
        let text = try await demo.tool.text(["export", row.session, "-o", demo.file("again.ndjson")])
        #expect(text.contains("exported \(row.session) (\(row.version) records)"))
    }

    @Test func importWithCreateStartsAStoreFromASessionFile() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let row = try await Self.longestKanji(in: demo)
        let file = demo.file("session.ndjson")
        _ = try await demo.tool.json(CommandOutputs.Archive.self, ["export", row.session, "-o", file])

        // A missing directory and an empty one: without --create no store, with it a new store
        // holding the one session, whose history is the exported one.
        let empty = demo.file("empty-store")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        for path in [demo.file("new-store"), empty] {
            let fresh = try RewindTool(store: path)
            expectOneLineError(try await fresh.run(["import", file]), containing: ["no store at", "--create"])
            let imported = try await fresh.json(CommandOutputs.Archive.self, ["import", file, "--create"])
            #expect(imported.session == row.session)
            #expect(imported.records == row.version)
            let sessions = try await fresh.sessionRows(["sessions"])
            #expect(sessions.map(\.session) == [row.session])
            let original = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", row.session])
            let copy = try await fresh.json([CommandOutputs.HistoryRow].self, ["history", row.session])
            #expect(Self.steps(copy) == Self.steps(original))
        }
    }

    @Test func aRefusedImportWithCreateCreatesNoStore() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let row = try await Self.longestKanji(in: demo)
        let file = demo.file("session.ndjson")
        _ = try await demo.tool.text(["export", row.session, "-o", file])
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let truncated = demo.file("truncated.ndjson")
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: truncated))
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
        let index = try #require(lines.firstIndex { $0.contains("\"version\":2") })
        lines[index] = lines[index].replacingOccurrences(of: "\"version\":2", with: "\"version\":3")
        let tampered = demo.file("tampered.ndjson")
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: tampered))

        let refusals: [(arguments: [String], fragment: String)] = [
            (["import", demo.file("nosuch.ndjson"), "--create"], "nosuch.ndjson"),
            (["import", truncated, "--create"], "line"),
            (["import", tampered, "--create"], "line \(index + 1)"),
            (["import", file, "--create", "--as", ""], "invalid session id"),
        ]
        // A missing directory stays missing, an empty one empty.
        let empty = demo.file("empty-store")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        for path in [demo.file("new-store"), empty] {
            let fresh = try RewindTool(store: path)
            for refusal in refusals {
                expectOneLineError(try await fresh.run(refusal.arguments), containing: [refusal.fragment])
                if path == empty {
                    let contents = try FileManager.default.contentsOfDirectory(atPath: path)
                    #expect(contents.isEmpty, "\(refusal.arguments) left \(contents)")
                } else {
                    #expect(!FileManager.default.fileExists(atPath: path), "\(refusal.arguments) created the store")
                }
            }
            // The good file still makes the store.
            let imported = try await fresh.json(CommandOutputs.Archive.self, ["import", file, "--create"])
            #expect(imported.records == row.version)
        }
    }

    @Test func exportToStandardOutputPipesIntoImportFromStandardInput() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let row = try await Self.longestKanji(in: demo)
        let exported = try await demo.tool.run(["export", row.session, "-o", "-"])
        #expect(exported.status == 0, "\(exported)")
        #expect(
            exported.stdout.hasPrefix(#"{"crc32c":""#),
            "the archive is on standard output: \(exported.stdout.prefix(200))")
        #expect(exported.stderr.contains("exported \(row.session)"), "the summary is on standard error")
        let file = demo.file("session.ndjson")
        _ = try await demo.tool.text(["export", row.session, "-o", file])
        #expect(Data(exported.stdout.utf8) == (try Data(contentsOf: URL(fileURLWithPath: file))))

        let imported = try await demo.tool.run(
            ["import", "-", "--as", "piped", "--json"], stdin: Data(exported.stdout.utf8))
        #expect(imported.status == 0, "\(imported)")
        let report = try JSONDecoder().decode(CommandOutputs.Archive.self, from: Data(imported.stdout.utf8))
        #expect(report.session == "piped" && report.machine == "kanji" && report.records == row.version)
        let original = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", row.session])
        let copy = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", "piped"])
        #expect(Self.steps(copy) == Self.steps(original))
        expectUsageError(try await demo.tool.run(["export", row.session, "-o", "-", "--json"]), containing: ["-o -"])
    }

    @Test func exportToADirectoryOrAMissingFolderSaysWhyWithoutFoundationsError() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let row = try await Self.longestKanji(in: demo)
        let directory = demo.directory.url.path
        let intoDirectory = try await demo.tool.run(["export", row.session, "-o", directory])
        expectOneLineError(intoDirectory, containing: ["cannot write '\(directory)'", "is a directory"])
        let missing = demo.file("no/such/folder/a.rewind")
        let intoMissing = try await demo.tool.run(["export", row.session, "-o", missing])
        expectOneLineError(intoMissing, containing: ["cannot write '\(missing)'", "does not exist"])
        for output in [intoDirectory, intoMissing] {
            #expect(!output.stderr.contains("Error Domain") && !output.stderr.contains("(null)"), "\(output.stderr)")
        }
    }

    @Test func aOneRecordSessionIsOneRecord() async throws {
        let scratch = try TemporaryDirectory(prefix: "rewind-cli")
        defer { scratch.remove() }
        let store = scratch.url.appendingPathComponent("store").path
        do {
            let engine = try Engine(directory: store, configuration: EngineConfiguration(durability: .noSync))
            defer { engine.close() }
            try engine.register(try ExampleMachines.Kanji.machine())
            _ = try await engine.startSession(id: "single", machine: "kanji")
        }
        let tool = try RewindTool(store: store)
        let exported = try await tool.text([
            "export", "single", "-o", scratch.url.appendingPathComponent("a.rewind").path,
        ])
        #expect(exported.contains("(1 record)"), "\(exported)")
        let imported = try await tool.text([
            "import", scratch.url.appendingPathComponent("a.rewind").path, "--as", "again",
        ])
        #expect(imported.contains("(kanji, 1 record)"), "\(imported)")
    }

    @Test func importingOverAnExistingSessionIsRefusedAndImportsNothing() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let row = try await Self.longestKanji(in: demo)
        let file = demo.file("session.ndjson")
        _ = try await demo.tool.text(["export", row.session, "-o", file])
        let refused = try await demo.tool.run(["import", file])
        expectOneLineError(refused, containing: ["'\(row.session)' already exists", "--as NEWID"])
        #expect(!refused.stderr.contains("engine."), "no library API in a CLI error: \(refused.stderr)")
        let sessions = try await demo.tool.sessionRows(["sessions"])
        #expect(sessions.count == demo.summary.totalSessions)
        #expect(sessions.first { $0.session == row.session }?.version == row.version)
    }

    @Test(arguments: ["cut mid-line", "no trailer", "tampered record", "not an archive", "empty"])
    func aDamagedArchiveIsAOneLineErrorAndImportsNothing(damage: String) async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let row = try await Self.longestKanji(in: demo)
        let file = demo.file("session.ndjson")
        _ = try await demo.tool.text(["export", row.session, "-o", file])
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
        let damaged: Data
        switch damage {
        case "cut mid-line":
            damaged = data.prefix(data.count / 2)
        case "no trailer":
            lines.removeLast(2)  // the trailer and the empty string after the final newline
            damaged = Data((lines.joined(separator: "\n") + "\n").utf8)
        case "tampered record":
            // A record's target changed, its checksum left as it was.
            let index = try #require(
                lines.firstIndex { $0.contains("\"target\":[\"detail\"]") && $0.contains("\"version\":2") })
            lines[index] = lines[index].replacingOccurrences(
                of: "\"target\":[\"detail\"]", with: "\"target\":[\"list\"]")
            damaged = Data(lines.joined(separator: "\n").utf8)
        case "not an archive":
            damaged = Data("hello\nworld\n".utf8)
        default:
            damaged = Data()
        }
        #expect(damaged != data)
        let path = demo.file("damaged.ndjson")
        try damaged.write(to: URL(fileURLWithPath: path))

        expectOneLineError(try await demo.tool.run(["import", path, "--as", "copy"]), containing: [])
        let sessions = try await demo.tool.sessionRows(["sessions"])
        #expect(sessions.count == demo.summary.totalSessions, "\(damage)")
        #expect(!sessions.contains { $0.session == "copy" }, "\(damage)")
        let stats = try await demo.tool.json(CommandOutputs.Stats.self, ["stats"])
        #expect(stats.records == demo.summary.totalRecords, "\(damage)")
    }

    @Test func exportAndImportErrorsAreOneLine() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        expectOneLineError(
            try await demo.tool.run(["import", demo.file("missing.ndjson")]), containing: ["missing.ndjson"])
        expectOneLineError(
            try await demo.tool.run(["export", "nobody", "-o", demo.file("x.ndjson")]),
            containing: ["unknown session 'nobody'"])
        #expect(!FileManager.default.fileExists(atPath: demo.file("x.ndjson")))
        let row = try await Self.longestKanji(in: demo)
        expectOneLineError(
            try await demo.tool.run(["export", row.session, "-o", demo.file("no/such/folder/x.ndjson")]), containing: []
        )
    }

    @Test func forkAtAVersionStartsANewSessionWithThatPastAndLeavesTheOriginal() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let row = try await Self.longestKanji(in: demo)
        try #require(row.version >= 3)
        let original = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", row.session])
        let fork = try await demo.tool.json(
            CommandOutputs.Fork.self, ["fork", row.session, "--at", "2", "--as", "branch"])
        #expect(fork.session == "branch")
        #expect(fork.origin == "\(row.session)@2")
        let forkState = try await demo.tool.json(CommandOutputs.Point.self, ["state", "branch"])
        let pastState = try await demo.tool.json(CommandOutputs.Point.self, ["state", row.session, "--at", "2"])
        #expect(forkState.activeStates == pastState.activeStates)
        #expect(forkState.navigationStack == pastState.navigationStack)
        #expect(forkState.version == fork.version)

        let after = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", row.session])
        #expect(after == original)
        let sessions = try await demo.tool.sessionRows(["sessions"])
        #expect(sessions.count == demo.summary.totalSessions + 1)
        #expect(sessions.first { $0.session == "branch" }?.origin?.contains(row.session) == true)

        // The default id, and the errors.
        let text = try await demo.tool.text(["fork", row.session, "--at", "3"])
        #expect(text.contains("as \(row.session)-fork-3"))
        expectOneLineError(
            try await demo.tool.run(["fork", row.session, "--at", "0"]), containing: ["bad version '0'"])
        expectOneLineError(
            try await demo.tool.run(["fork", "nobody", "--at", "1"]), containing: ["unknown session 'nobody'"])
        let taken = try await demo.tool.run(["fork", row.session, "--at", "2", "--as", "branch"])
        expectOneLineError(taken, containing: ["'branch' already exists", "fork under another id with --as NEWID"])
        #expect(!taken.stderr.contains("engine."), "no library API in a CLI error: \(taken.stderr)")
    }
}
