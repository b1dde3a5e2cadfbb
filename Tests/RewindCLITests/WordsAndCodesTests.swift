import Foundation
import RewindTestSupport
import Testing

/// What the tool says when something is wrong: the file system's refusals in its own words,
/// usage errors with status 64, a file named as a store, ASCII under a non-UTF-8 locale, and
/// redaction rules that match nothing.
struct WordsAndCodesTests {
    /// Expects no Foundation error text (`NSCocoaErrorDomain`, `Code=513`, `UserInfo=`) in `output`.
    private func expectOwnWords(_ output: ProcessOutput, sourceLocation: SourceLocation = #_sourceLocation) {
        for raw in ["NSCocoaErrorDomain", "Code=", "UserInfo", "Error Domain"] {
            #expect(!output.stderr.contains(raw), "\(output.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test func writingAPageIntoADirectoryNamesTheDirectory() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let folder = demo.file("pages")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for path in [folder + "/", folder] {
            let output = try await demo.tool.run(["view", "kanji-3", "-o", path])
            expectOneLineError(output, containing: ["cannot write '\(path)': it is a directory", "kanji-3.html"])
            expectOwnWords(output)
        }
        let missing = demo.file("nowhere/page.html")
        expectOneLineError(
            try await demo.tool.run(["view", "kanji-3", "-o", missing]),
            containing: ["cannot write '\(missing)'", "does not exist"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test func freshWithoutPermissionSaysPermissionDenied() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let before = try Data(contentsOf: URL(fileURLWithPath: demo.tool.store + "/data.mdb"))
        let output: ProcessOutput
        if getuid() == 0 {
            // Root may delete anything: run the tool as user nobody, who cannot write the store's directory.
            guard let setpriv = BuiltProduct.onPath(named: "setpriv") else {
                print("fresh-without-permission test skipped: running as root without setpriv to drop to another user")
                return
            }
            output = try await runProcess(
                setpriv,
                arguments: [
                    "--reuid=65534", "--regid=65534", "--clear-groups", demo.tool.executable.path,
                    "demo", "--fresh", "--sessions", "1", "--store", demo.tool.store,
                ])
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: demo.tool.store)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: demo.tool.store) }
            output = try await demo.tool.run(["demo", "--fresh", "--sessions", "1"])
        }
        expectOneLineError(output, containing: ["cannot delete '", "/data.mdb': permission denied"])
        expectOwnWords(output)
        #expect(try Data(contentsOf: URL(fileURLWithPath: demo.tool.store + "/data.mdb")) == before)
    }

    @Test func aStoreDirectoryThatCannotBeCreatedIsSaidSo() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("afile").path
        try Data().write(to: URL(fileURLWithPath: file))
        // A folder below a file: not even root can create it.
        let tool = try RewindTool(store: file + "/store")
        let output = try await tool.run(["demo", "--sessions", "1"])
        expectOneLineError(
            output, containing: ["cannot open or create the store '\(file)/store': '\(file)' is a file, not a folder"])
        expectOwnWords(output)
    }

    @Test func anEmptyStorePathIsAUsageError() async throws {
        let tool = try RewindTool(store: "")
        for command in [["sessions"], ["demo", "--sessions", "1"], ["history", "kanji-3"]] {
            let output = try await tool.run(command)
            expectUsageError(output, containing: ["--store needs a directory, not an empty path"])
            expectOwnWords(output)
        }
    }

    @Test func usageErrorsExitWith64() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        expectUsageError(
            try await demo.tool.run(["sessions", "--limit", "0"]), containing: ["--limit must be at least 1"])
        expectUsageError(
            try await demo.tool.run(["graph", "kanji", "--at", "2"]), containing: ["--at needs --session"])
        expectUsageError(
            try await demo.tool.run(["graph", "kanji", "--json", "--format", "dot"]),
            containing: ["--json conflicts with --format dot"])
        expectUsageError(
            try await demo.tool.run(["export", "kanji-3", "-o", "-", "--json"]),
            containing: ["--json conflicts with -o -"])
        expectUsageError(
            try await demo.tool.run(["view", "kanji-3", "--redact", "card.number"]),
            containing: ["redaction path 'card.number'"])
        expectUsageError(try await demo.tool.run(["sessions", "--key", "k"]), containing: ["--key goes with --server"])
        expectUsageError(
            try await demo.tool.run(["demo", "--concurrency", "0"]),
            containing: ["--concurrency must be between 1 and 4096"])
        // A version is checked against the session in the store: an error, not a usage error.
        expectOneLineError(
            try await demo.tool.run(["state", "kanji-3", "--at", "999"]), containing: ["bad version '999'"])
        expectOneLineError(
            try await demo.tool.run(["state", "kanji-3", "--at", "abc"]), containing: ["bad version 'abc'"])
    }

    @Test func freshRefusesTheCurrentDirectoryEvenInsideAStore() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let before = try Data(contentsOf: URL(fileURLWithPath: demo.tool.store + "/data.mdb"))
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        for path in [".", "./", demo.tool.store] {
            let output = try await runProcess(
                demo.tool.executable, arguments: ["demo", "--fresh", "--sessions", "1", "--store", path],
                environment: environment, currentDirectory: URL(fileURLWithPath: demo.tool.store))
            expectOneLineError(
                output,
                containing: ["refusing to delete '\(path)': it is the current directory", "nothing was deleted"])
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: demo.tool.store + "/data.mdb")) == before)
    }

    @Test func aFileNamedAsAStoreIsSaidToBeAFile() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("afile").path
        try Data("not a store".utf8).write(to: URL(fileURLWithPath: file))
        let tool = try RewindTool(store: file)
        for command in [["sessions"], ["history", "kanji-3"], ["stats"], ["check"], ["import", file]] {
            expectOneLineError(try await tool.run(command), containing: ["'\(file)' is a file, not a store directory"])
        }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "not a store")
    }

    @Test func aNonUTF8LocaleGetsASCII() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        for locale in ["C", "POSIX", "en_US.ISO-8859-1"] {
            let history = try await demo.tool.run(["history", "kanji-3"], locale: locale)
            #expect(history.status == 0, "\(history)")
            // The tool's own symbols are ASCII; the kanji in the stack are the session's data.
            #expect(
                history.stdout.contains("- -> all") && !history.stdout.contains("∅") && !history.stdout.contains("→"),
                "\(history.stdout)")
            #expect(!history.stdout.contains("·") && !history.stdout.contains("›"), "\(history.stdout)")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = nil
        environment["LC_CTYPE"] = nil
        environment["LANG"] = "C"
        let bench = try await runProcess(
            demo.tool.executable, arguments: ["bench", "--transitions", "12", "--sessions", "2"],
            environment: environment)
        #expect(bench.status == 0, "\(bench)")
        #expect(bench.stdout.allSatisfy(\.isASCII) && bench.stderr.allSatisfy(\.isASCII), "\(bench)")
        #expect(bench.stdout.contains("P50 us") && bench.stderr.contains("running durable, 1 session..."), "\(bench)")
    }

    @Test func aRedactionPathThatMatchesNothingIsAnError() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let page = demo.file("page.html")
        let typo = try await demo.tool.run([
            "view", "kanji-3", "-o", page, "--redact", "data.*.character", "data.*.charcter",
        ])
        expectOneLineError(
            typo, containing: ["no value matched the redaction path 'data.*.charcter'", "nothing was written"])
        #expect(!typo.stderr.contains("'data.*.character'"), "the rule that matched is not named: \(typo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: page))
        let two = try await demo.tool.run([
            "view", "--machine", "kanji", "-o", page, "--redact", "context.nothing", "payload.nope",
        ])
        expectOneLineError(two, containing: ["paths 'context.nothing', 'payload.nope'"])

        let allowed = try await demo.tool.run(
            [
                "view", "kanji-3", "-o", page, "--redact", "data.*.character", "data.*.charcter",
                "--allow-unmatched-redactions",
            ])
        #expect(allowed.status == 0, "\(allowed)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("‹redacted›"))
        let matched = try await demo.tool.run(["view", "kanji-3", "-o", page, "--redact", "data.*.character"])
        #expect(matched.status == 0, "\(matched)")
    }
}
