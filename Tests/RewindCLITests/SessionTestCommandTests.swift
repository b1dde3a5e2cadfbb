import Foundation
import Rewind
import RewindTestSupport
import Testing

/// `rewind session-test`: recorded sessions written as a Swift Testing file. The checkout
/// fixture's file is checked in (Tests/RecordedSessionFixtureTests, where it is compiled and run
/// against the recorded and a diverging definition); here the command must write it byte for byte.
struct SessionTestCommandTests {
    /// The checked-in file the command must write from the fixture's store.
    static let fixtureFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("RecordedSessionFixtureTests/RecordedCheckoutSessions.swift")

    /// The arguments that write the fixture's file (besides `-o` and `--store`).
    static let fixtureArguments = [
        "session-test", "order-1", "order-2", "--import", "RewindTestSupport",
        "--machine", "try RecordedSessionFixture.machine()",
    ]

    /// Runs `body` with a new store holding the checkout fixture's sessions, its directory and the
    /// tool on it.
    func withFixtureStore(_ body: (TemporaryDirectory, RewindTool) async throws -> Void) async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-session-test")
        defer { directory.remove() }
        let store = directory.path + "/store"
        try await RecordedSessionFixture.record(in: store)
        try await body(directory, try RewindTool(store: store))
    }

    @Test func theCommandWritesTheCheckedInFixtureTestsByteForByte() async throws {
        try await withFixtureStore { directory, tool in
            let output = directory.path + "/RecordedCheckoutSessions.swift"
            let text = try await tool.text(Self.fixtureArguments + ["-o", output])
            #expect(text == "wrote \(output): 2 tests (11 versions) in RecordedCheckoutSessions\n")
            let written = try Data(contentsOf: URL(fileURLWithPath: output))
            // REWIND_UPDATE_FIXTURES=1 rewrites the checked-in file (then review its diff).
            if ProcessInfo.processInfo.environment["REWIND_UPDATE_FIXTURES"] == "1" {
                try written.write(to: Self.fixtureFile)
            }
            let checkedIn = try Data(contentsOf: Self.fixtureFile)
            #expect(
                written == checkedIn,
                """
                Tests/RecordedSessionFixtureTests/RecordedCheckoutSessions.swift is not what `rewind session-test` \
                writes now; rerun this test with REWIND_UPDATE_FIXTURES=1 and review the diff
                """)
            // Standard output without -o: the same text.
            #expect(try await tool.text(Self.fixtureArguments) == String(decoding: written, as: UTF8.self))
            // No path, no redacted value.
            let source = String(decoding: written, as: UTF8.self)
            #expect(!source.contains(directory.path))
            #expect(!source.contains("/tmp"))
            for secret in RecordedSessionFixture.secrets { #expect(!source.contains(secret)) }
            #expect(source.components(separatedBy: "    @Test(").count == 3)
            #expect(source.contains(#"@Test("session order-1 (checkout, versions 1–6)")"#))
        }
    }

    @Test func anArchiveWritesTheSameTestAsTheStore() async throws {
        try await withFixtureStore { directory, tool in
            let archive = directory.path + "/order-2.ndjson"
            _ = try await tool.text(["export", "order-2", "-o", archive])
            let arguments = [
                "session-test", "--import", "RewindTestSupport", "--machine", "try RecordedSessionFixture.machine()",
            ]
            let fromArchive = try await tool.text(arguments + ["--archive", archive])
            let fromStore = try await tool.text(arguments + ["order-2"])
            #expect(fromArchive == fromStore)
            #expect(fromArchive.contains("redacted: true"))
        }
    }

    @Test func redactPathsKeepMoreValuesOutAndMarkTheirVersions() async throws {
        try await withFixtureStore { _, tool in
            let text = try await tool.text(Self.fixtureArguments + ["--redact", "payload.sku", "data.*.sku"])
            #expect(!text.contains("mug-1"))
            #expect(!text.contains("tea-7"))
            #expect(text.contains(#""sku":"‹redacted›""#))
            let bad = try await tool.run(Self.fixtureArguments + ["--redact", "paylod.sku"])
            expectUsageError(bad, containing: ["paylod.sku", "it must start with payload, data or context"])
        }
    }

    @Test func anExampleMachineNeedsNoMachineExpression() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-session-test")
        defer { directory.remove() }
        let engine = try Engine(directory: directory.path, configuration: EngineConfiguration(durability: .noSync))
        try engine.register(try ExampleMachines.Kanji.machine())
        let session = try engine.makeSession(id: "kanji-1", machine: "kanji")
        try await session.enter("all")
        try await session.enter("detail", data: ["character": "日", "meanings": ["day", "sun"]])
        engine.close()
        let text = try await RewindTool(store: directory.path).text(["session-test", "kanji-1"])
        #expect(text.contains("import Rewind\nimport RewindExamples\nimport Testing\n"))
        #expect(text.contains("        try ExampleMachines.Kanji.machine()\n"))
        #expect(text.contains("struct RecordedKanjiSessions {"))
        #expect(text.contains(#""character":"日""#))
    }

    @Test func badRequestsAreOneLineErrors() async throws {
        try await withFixtureStore { directory, tool in
            expectUsageError(
                try await tool.run(["session-test"]), containing: ["give one or more session ids, or --archive FILE"])
            expectUsageError(
                try await tool.run(["session-test", "order-1"]),
                containing: ["machine 'checkout' is not an example", "--machine EXPRESSION", "--import MODULE"])
            expectUsageError(
                try await tool.run(Self.fixtureArguments + ["--suite", "Not A Name"]),
                containing: ["--suite must be a Swift identifier"])
            expectOneLineError(
                try await tool.run(["session-test", "order-9", "--machine", "x"]),
                containing: ["unknown session 'order-9'"])
            // A damaged archive names the file and the line.
            let archive = directory.path + "/order-1.ndjson"
            _ = try await tool.text(["export", "order-1", "-o", archive])
            var bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
            bytes.removeLast(30)
            try bytes.write(to: URL(fileURLWithPath: archive))
            expectOneLineError(
                try await tool.run(["session-test", "--archive", archive, "--machine", "x"]),
                containing: [archive, "line"])
            expectOneLineError(
                try await tool.run(["session-test", "--archive", directory.path + "/missing.ndjson", "--machine", "x"]),
                containing: ["missing.ndjson", "does not exist"])
        }
    }

    @Test func sessionsOfSeveralMachinesAreAUsageError() async throws {
        try await withFixtureStore { directory, tool in
            let engine = try Engine(directory: tool.store, configuration: EngineConfiguration(durability: .noSync))
            try engine.register(try ExampleMachines.Kanji.machine())
            try await engine.makeSession(id: "kanji-1", machine: "kanji").enter("all")
            engine.close()
            expectUsageError(
                try await tool.run(Self.fixtureArguments + ["kanji-1"]),
                containing: ["the sessions are of machines checkout, kanji: write one file per machine"])
        }
    }

    @Test func aMissingStoreIsNoStoreAndIsNotCreated() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let missing = directory.url.appendingPathComponent("missing").path
        let output = try await RewindTool(store: missing).run(["session-test", "order-1", "--machine", "x"])
        expectOneLineError(output, containing: ["no store at '\(missing)'"])
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
