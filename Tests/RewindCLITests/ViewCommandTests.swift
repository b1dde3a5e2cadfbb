import Foundation
import RewindTestSupport
import Testing

/// `rewind view`: where the page goes, and its errors. (What the pages show is checked in a
/// browser by RewindViewerTests.)
struct ViewCommandTests {
    @Test func theDefaultFileIsTheSessionsNameInTheCurrentDirectory() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions"])
        let row = try #require(sessions.first { $0.machine == "kanji" })
        let folder = demo.directory.url.appendingPathComponent("pages")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        let output = try await runProcess(
            demo.tool.executable, arguments: ["view", row.session, "--store", demo.tool.store],
            environment: environment, currentDirectory: folder)
        #expect(output.status == 0, "\(output)")
        let page = try String(contentsOf: folder.appendingPathComponent("\(row.session).html"), encoding: .utf8)
        #expect(page.hasPrefix("<!doctype html>") && page.contains(#"id="rw-archive""#))
        #expect(output.stdout.contains("wrote \(row.session).html"))
    }

    @Test func badRequestsAreOneLineErrorsOrUsageErrors() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        expectOneLineError(
            try await demo.tool.run(["view", "nobody", "-o", demo.file("x.html")]), containing: ["nobody"])
        expectOneLineError(
            try await demo.tool.run(["view", "--machine", "nomachine", "-o", demo.file("x.html")]),
            containing: ["nomachine"])
        let badPath = try await demo.tool.run(["view", "kanji-3", "--redact", "card.number"])
        #expect(badPath.status == 64, "\(badPath)")
        #expect(
            badPath.stderr.contains("redaction path 'card.number': it must start with payload, data or context"),
            "\(badPath)")
        let lonely = try await demo.tool.run(["view", "kanji-3", "--definition", "x.json"])
        #expect(lonely.status == 64 && lonely.stderr.contains("--definition goes with --verify"), "\(lonely)")
        #expect(!FileManager.default.fileExists(atPath: demo.file("x.html")))
    }
}
