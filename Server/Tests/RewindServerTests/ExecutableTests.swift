import Foundation
import RewindBaseTestSupport
import RewindServer
import Testing

/// The built `rewind-server`: `create-app` prints working keys; `serve` migrates, listens,
/// answers and stops gracefully on SIGTERM.
@Suite(.timeLimit(.minutes(10))) struct ExecutableTests {
    /// The built executable `name` (`rewind-server`, or the root package's `rewind`), next to the tests.
    static func executable(named name: String = "rewind-server") throws -> URL {
        try #require(BuiltProduct.url(named: name), "\(name) is built next to the tests (swift build --build-tests)")
    }

    @Test func createAppPrintsKeysThatWork() async throws {
        let database = try await TestDatabase.make()
        let run = try await Self.run(["create-app", "shop's app; DROP TABLE apps"], database: database)
        let printed = run.stdout
        let warnings = run.stderr
        #expect(run.status == 0, "\(printed)")
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

    /// Runs the built `rewind-server` with `arguments` on `database` to its end (killed if the
    /// test is cancelled, as by the suite's time limit): its exit status, output and error output.
    static func run(_ arguments: [String], database: TestDatabase) async throws -> ProcessOutput {
        try await runProcess(
            try executable(), arguments: arguments + ["--database-url", url(database)], signalOnCancel: SIGKILL)
    }

    /// `serve` refuses limits that would refuse every request before it touches the database: each
    /// a usage error (exit status 64) naming its flag.
    @Test func serveRefusesLimitsThatAreNotPositive() async throws {
        let database = try await TestDatabase.make()
        for (flag, value) in [("--requests-per-key", "0"), ("--max-body-bytes", "0")] {
            let run = try await Self.run(["serve", "--port", "0", flag, value], database: database)
            #expect(run.status == 64, "\(flag) \(value): \(run.stderr)")
            #expect(run.stderr.contains("\(flag) must be positive"), "\(flag) \(value): \(run.stderr)")
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
            added.stdout.split(whereSeparator: \.isWhitespace).compactMap { APIKey(token: String($0)) }.first)
        #expect(key.kind == .erase)
        let server = try await TestServer.start(database: database)
        let erased = try await server.request("POST", "/v1/erasures", key: key, body: Array(#"{"session": "s"}"#.utf8))
        #expect(erased.status == 200, "\(erased.text)")
        try await server.stop()
    }

    @Test func serveStopsGracefullyOnSIGTERM() async throws {
        let database = try await TestDatabase.make()
        let server = try await ServerProcess.start(database: database)
        // Killed if a step throws (nothing is sent once it has stopped on its own).
        try await server.killing {
            let health = try await RawHTTP.exchange(
                port: server.port,
                bytes: Array("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            #expect(health.status == 200)
            server.process.send(SIGTERM)
            var stopped = false
            for await line in server.lines.stream where line.contains("stopped") { stopped = true }
            // Its standard error is closed: it has ended or is ending.
            let exit = await server.process.waitForExit(signalingOnCancel: SIGKILL)
            #expect(stopped)
            #expect(!exit.signaled, "\(exit)")
            #expect(exit.code == 0, "\(exit)")
        }
        #expect(try await database.count("schema_migrations") == Migrations.all.count)
    }

    static func url(_ database: TestDatabase) -> String {
        let url = database.url
        return "postgres://\(url.username)@\(url.host ?? "127.0.0.1"):\(url.port)/\(url.database)"
    }
}
