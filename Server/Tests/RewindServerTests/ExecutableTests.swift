import Foundation
import RewindServer
import Testing

/// The built `rewind-server`: `create-app` prints working keys; `serve` migrates, listens,
/// answers and stops gracefully on SIGTERM.
@Suite(.timeLimit(.minutes(10))) struct ExecutableTests {
    /// The built executable `name` (`rewind-server`, or the root package's `rewind`), next to the tests.
    static func executable(named name: String = "rewind-server") throws -> URL {
        var directories: [URL] = []
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        let found = directories.map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return try #require(found, "\(name) is built next to the tests (swift build --build-tests)")
    }

    @Test func createAppPrintsKeysThatWork() async throws {
        let database = try await TestDatabase.make()
        let process = Process()
        process.executableURL = try Self.executable()
        process.arguments = ["create-app", "shop's app; DROP TABLE apps", "--database-url", "\(Self.url(database))"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        async let reported = readToEnd(errors, of: process)
        let printed = String(decoding: try await readToEnd(output, of: process), as: UTF8.self)
        await waitForExit(process)
        let warnings = String(decoding: try await reported, as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(printed)")
        // Nothing but the keys: no stray warning of the database driver.
        #expect(!warnings.contains("PostgresClient"), "\(warnings)")
        #expect(!warnings.contains("warning"), "\(warnings)")
        let tokens = printed.split(whereSeparator: \.isWhitespace).filter { $0.hasPrefix("rewind_") }.map(String.init)
        let keys = tokens.compactMap(APIKey.init(token:))
        #expect(keys.map(\.kind) == [.ingest, .read])
        #expect(printed.contains("shop's app; DROP TABLE apps"))

        let server = try await TestServer.start(database: database)
        let device = try Device()
        try await device.runOnboarding(["cli"])
        #expect(try await server.upload(try device.batch(), store: device.storeID, key: keys[0]).status == 200)
        #expect(try await server.position(store: device.storeID, key: keys[1]) == 5)
        #expect(try await server.request("GET", "/v1/sessions", key: keys[0]).status == 403)
        try await server.stop()
    }

    /// Runs the built `rewind-server` with `arguments` on `database`: its exit status, output and
    /// error output.
    static func run(_ arguments: [String], database: TestDatabase) async throws -> (
        status: Int32, output: String, errors: String
    ) {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments + ["--database-url", url(database)]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        async let reported = readToEnd(errors, of: process)
        let printed = try await readToEnd(output, of: process)
        await waitForExit(process)
        return (
            process.terminationStatus, String(decoding: printed, as: UTF8.self),
            String(decoding: try await reported, as: UTF8.self)
        )
    }

    /// `serve` refuses limits that would refuse every request before it touches the database: each
    /// a usage error (exit status 64) naming its flag.
    @Test func serveRefusesLimitsThatAreNotPositive() async throws {
        let database = try await TestDatabase.make()
        for (flag, value) in [("--requests-per-key", "0"), ("--max-body-bytes", "0")] {
            let run = try await Self.run(["serve", "--port", "0", flag, value], database: database)
            #expect(run.status == 64, "\(flag) \(value): \(run.errors)")
            #expect(run.errors.contains("\(flag) must be positive"), "\(flag) \(value): \(run.errors)")
        }
    }

    @Test func retentionAndEraseKeysAreSetByTheAdminCommands() async throws {
        let database = try await TestDatabase.make()
        func retention() async throws -> Int64? {
            try await database.withClient { client in
                var seconds: Int64?
                for try await value in try await client.query("SELECT retention_seconds FROM apps WHERE name = 'kept'")
                    .decode(Int64?.self)
                {
                    seconds = value
                }
                return seconds
            }
        }
        #expect(try await Self.run(["create-app", "kept", "--retention-days", "30"], database: database).status == 0)
        #expect(try await retention() == 30 * 86_400)
        #expect(try await Self.run(["set-retention", "kept", "--days", "7"], database: database).status == 0)
        #expect(try await retention() == 7 * 86_400)
        #expect(try await Self.run(["set-retention", "kept", "--forever"], database: database).status == 0)
        #expect(try await retention() == nil)
        #expect(try await Self.run(["set-retention", "kept"], database: database).status != 0)
        #expect(try await Self.run(["set-retention", "nobody", "--days", "1"], database: database).status != 0)

        let added = try await Self.run(["add-key", "kept", "--kind", "erase"], database: database)
        #expect(added.status == 0)
        let key = try #require(
            added.output.split(whereSeparator: \.isWhitespace).compactMap { APIKey(token: String($0)) }.first)
        #expect(key.kind == .erase)
        let server = try await TestServer.start(database: database)
        let erased = try await server.request("POST", "/v1/erasures", key: key, body: Array(#"{"session": "s"}"#.utf8))
        #expect(erased.status == 200, "\(erased.text)")
        try await server.stop()
    }

    @Test func serveStopsGracefullyOnSIGTERM() async throws {
        let database = try await TestDatabase.make()
        let server = try await ServerProcess.start(database: database)
        let health = try await RawHTTP.exchange(
            port: server.port, bytes: Array("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(health.status == 200)
        let process = server.process
        process.terminate()  // SIGTERM
        var stopped = false
        for await line in server.lines.stream where line.contains("stopped") { stopped = true }
        await waitForExit(process)
        #expect(stopped)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(try await database.count("schema_migrations") == Migrations.all.count)
    }

    static func url(_ database: TestDatabase) -> String {
        let url = database.url
        return "postgres://\(url.username)@\(url.host ?? "127.0.0.1"):\(url.port)/\(url.database)"
    }
}

/// The lines a pipe delivers, read on a thread of its own, as an async stream (ends at EOF).
final class LineReader: Sendable {
    let stream: AsyncStream<String>

    init(_ handle: FileHandle) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        self.stream = stream
        Thread {
            var pending = Data()
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                pending.append(data)
                while let newline = pending.firstIndex(of: 10) {
                    continuation.yield(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending = Data(pending[(newline + 1)...])
                }
            }
            if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
            continuation.finish()
        }.start()
    }
}
