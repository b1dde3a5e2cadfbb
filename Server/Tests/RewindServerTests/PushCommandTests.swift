import Foundation
import Rewind
import RewindBaseTestSupport
import RewindServer
@_spi(Internals) import RewindStore
import RewindSync
import Testing

/// `rewind push` end to end: the built `rewind` against the real server.
@Suite(.timeLimit(.minutes(10))) struct PushCommandTests {
    /// The built `rewind`: next to the tests, or the root package's debug build (`swift build
    /// --product rewind` in the root, as `make server-test` does).
    static func rewind() throws -> URL {
        var candidates = [try ExecutableTests.executable().deletingLastPathComponent().appendingPathComponent("rewind")]
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/rewind"))
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return try #require(found, "rewind is built (swift build --product rewind in the root package)")
    }

    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs the built `rewind push` with `arguments` to its end (killed if the test is cancelled,
    /// as by the suite's time limit): its status and its two outputs' lines (no final newline).
    static func push(_ arguments: [String], locale: String = "C.UTF-8") async throws -> Run {
        let run = try await runProcess(
            try rewind(), arguments: ["push"] + arguments, environment: ["LANG": locale, "TERM": "dumb"],
            signalOnCancel: SIGKILL)
        func withoutFinalNewline(_ text: String) -> String { text.hasSuffix("\n") ? String(text.dropLast()) : text }
        return Run(status: run.status, output: withoutFinalNewline(run.stdout), errors: withoutFinalNewline(run.stderr))
    }

    @Test func pushUploadsTheStoreAndReportsProgress() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.writeSessions(6, prefix: "push")
        let url = "http://127.0.0.1:\(server.port)"
        let run = try await Self.push([
            "--store", device.directory, "--server", url, "--key", server.app.ingestKey.token, "--batch-records", "5",
        ])
        #expect(run.status == 0, "\(run.output)\n\(run.errors)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(
            lines.last
                == "pushed 24 records in 5 batches to \(url): the server holds records 1–24 of store \(device.storeID.uuidString)"
        )
        #expect(lines.contains { $0.hasPrefix("batch ") && $0.contains("/24 records") })
        try await server.database.expectHoldsPrefix(of: device, count: 24)

        // Again: nothing to send. After more sessions: only those.
        let again = try await Self.push([
            "--store", device.directory, "--server", url, "--key", server.app.ingestKey.token,
        ])
        #expect(again.status == 0)
        #expect(
            again.output.hasSuffix(
                "pushed 0 records in 0 batches to \(url): the server holds records 1–24 of store \(device.storeID.uuidString)"
            ))
        // Without a UTF-8 locale: ASCII only.
        let ascii = try await Self.push(
            ["--store", device.directory, "--server", url, "--key", server.app.ingestKey.token], locale: "C")
        #expect(
            ascii.output.hasSuffix(
                "pushed 0 records in 0 batches to \(url): the server holds records 1-24 of store \(device.storeID.uuidString)"
            ), "\(ascii.output)")
        let onlyASCII = ascii.output.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(onlyASCII, "\(ascii.output)")
        try await device.writeSessions(2, prefix: "more")
        let more = try await Self.push([
            "--store", device.directory, "--server", url, "--key", server.app.ingestKey.token, "--json",
        ])
        #expect(more.status == 0)
        let report = try JSONSerialization.jsonObject(with: Data(more.output.utf8)) as? [String: Any]
        #expect(report?["recordsUploaded"] as? Int == 8)
        #expect(report?["acknowledgedThrough"] as? Int == 32)
        try await server.database.expectHoldsPrefix(of: device, count: 32)
        try await server.stop()
    }

    /// Without `--batch-records` a push sends up to `Push.defaultBatchRecords` (5,000) records a
    /// batch, not the uploader's 500: 5,004 records, which would fit in one batch's 1 MiB, go in
    /// two batches (the uploader's default would take 11, no record limit one).
    @Test func pushSendsUpTo5000RecordsABatchByDefault() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.writeSessions(1_251, prefix: "bulk")
        #expect(try device.head == 5_004)
        // The premise: the bytes do not split these records (a quarter of the 1 MiB left for the
        // definitions and the framing), the record limit does.
        let bytes = try device.batch().records.reduce(0) { $0 + $1.count }
        #expect(bytes < UploaderConfiguration().maximumBatchBytes * 3 / 4, "\(bytes) bytes")
        let url = "http://127.0.0.1:\(server.port)"
        let run = try await Self.push([
            "--store", device.directory, "--server", url, "--key", server.app.ingestKey.token,
        ])
        #expect(run.status == 0, "\(run.output)\n\(run.errors)")
        #expect(
            run.output.split(separator: "\n").last.map(String.init)
                == "pushed 5004 records in 2 batches to \(url): the server holds records 1–5004 of store \(device.storeID.uuidString)"
        )
        try await server.database.expectHoldsPrefix(of: device, count: 5_004)
        try await server.stop()
    }

    @Test func pushFailsWithAClearMessage() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.writeSessions(1, prefix: "fail")
        let url = "http://127.0.0.1:\(server.port)"
        let readKey = try await Self.push([
            "--store", device.directory, "--server", url, "--key", server.app.readKey.token,
        ])
        #expect(readKey.status == 2)
        #expect(readKey.errors.contains("push to \(url) failed: the key may not upload (403)"), "\(readKey.errors)")
        // With nothing to send (everything pushed with the ingestion key), a read key still fails.
        let pushed = try await Self.push([
            "--store", device.directory, "--server", url, "--key", server.app.ingestKey.token,
        ])
        #expect(pushed.status == 0, "\(pushed.errors)")
        let nothingToSend = try await Self.push([
            "--store", device.directory, "--server", url, "--key", server.app.readKey.token,
        ])
        #expect(nothingToSend.status == 2)
        #expect(nothingToSend.errors.contains("the key may not upload (403)"), "\(nothingToSend.errors)")
        let unknown = try await Self.push([
            "--store", device.directory, "--server", url, "--key", "rewind_ingest_0000000000000000_00",
        ])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("the server refused the key (401)"), "\(unknown.errors)")
        let unreachable = try await Self.push([
            "--store", device.directory, "--server", "http://127.0.0.1:\(try TCPProxy.freePort())", "--key", "k",
        ])
        #expect(unreachable.status == 2)
        #expect(unreachable.errors.contains("the request did not complete"), "\(unreachable.errors)")
        let badURL = try await Self.push(["--store", device.directory, "--server", "ftp://x", "--key", "k"])
        #expect(badURL.status == 64)
        #expect(badURL.errors.contains("--server must be an http or https URL"), "\(badURL.errors)")
        try await server.database.expectHoldsPrefix(of: device, count: try device.records().count)
        try await server.stop()
    }
}
