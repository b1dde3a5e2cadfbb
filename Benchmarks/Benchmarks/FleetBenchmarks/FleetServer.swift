import Foundation
import Logging
import PostgresNIO
import RewindServer
import ServiceLifecycle

/// The cluster the fleet benchmarks run against: `REWIND_BENCH_DATABASE_URL`, a role that may
/// create databases (`Server/scripts/with-postgres.sh` starts one; see README.md).
enum FleetCluster {
    /// The environment variable naming the cluster.
    static let variable = "REWIND_BENCH_DATABASE_URL"

    /// The cluster's URL, or `nil` when the variable is unset (the fleet benchmarks are skipped).
    static var url: DatabaseURL? {
        get throws {
            guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return nil }
            return try DatabaseURL(text)
        }
    }

    /// Logs warnings and worse: the server's per-batch info lines would be the benchmark's output.
    static let logger: Logger = {
        var logger = Logger(label: "rewind-fleet-bench")
        logger.logLevel = .warning
        return logger
    }()
}

/// A database of its own in the cluster (created empty, dropped by ``drop()``).
struct FleetDatabase: Sendable {
    /// The cluster's URL (its maintenance database).
    let cluster: DatabaseURL
    /// The new database's URL.
    let url: DatabaseURL

    /// Creates an empty database with a unique name.
    static func make(in cluster: DatabaseURL) async throws -> FleetDatabase {
        let name = "rewind_bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await RewindServer.withClient(cluster, logger: FleetCluster.logger) { client in
            // A database name cannot be a bound parameter; this one is made of hex digits here.
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: FleetCluster.logger)
        }
        return FleetDatabase(cluster: cluster, url: cluster.with(database: name))
    }

    /// Runs `body` with a client of this database (the server's admin client: 2 connections).
    func withClient<R: Sendable>(_ body: @Sendable (PostgresClient) async throws -> R) async throws -> R {
        try await RewindServer.withClient(url, logger: FleetCluster.logger, body)
    }

    /// Drops the database (its name was made by ``make(in:)``).
    func drop() async throws {
        let name = url.database
        try await RewindServer.withClient(cluster, logger: FleetCluster.logger) { client in
            try await client.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: FleetCluster.logger)
        }
    }

    /// Checks that the cluster commits durably (`fsync` and `synchronous_commit` on, PostgreSQL's
    /// defaults): the ingestion and catch-up rows claim a production PostgreSQL, and a cluster
    /// made for the tests (no fsync) would measure something cheaper. Returns the settings read
    /// back, for the run's output.
    func verifyDurable() async throws -> [(name: String, value: String)] {
        let settings = try await self.settings()
        let value = { (name: String) in settings.first { $0.name == name }?.value ?? "unknown" }
        guard value("fsync") == "on", value("synchronous_commit") == "on" else {
            let observed = "fsync=\(value("fsync")) synchronous_commit=\(value("synchronous_commit"))"
            print(
                "BASELINE CONFIGURATION CHECK FAILED: PostgreSQL reads back \(observed), the fleet rows need fsync=on synchronous_commit=on (make bench-fleet sets REWIND_PG_DURABLE=1)"
            )
            throw FleetSetupError("PostgreSQL is not durable (\(observed))")
        }
        return settings
    }

    /// The settings that decide what a commit costs, read back from the server as `SHOW` gives
    /// them: printed with the results, so each row says what it ran against.
    func settings() async throws -> [(name: String, value: String)] {
        try await withClient { client in
            var settings: [(name: String, value: String)] = []
            for name in [
                "server_version", "fsync", "synchronous_commit", "wal_level", "full_page_writes", "shared_buffers",
                "max_wal_size",
            ] {
                for try await value in try await client.query(
                    PostgresQuery(unsafeSQL: "SHOW \(name)"), logger: FleetCluster.logger
                )
                .decode(String.self) {
                    settings.append((name, value))
                }
            }
            return settings
        }
    }
}

/// The real `RewindServer` on a free port of 127.0.0.1 over a ``FleetDatabase``, with one app and
/// its keys; stopped by ``stop()`` (a graceful shutdown).
final class FleetServer: Sendable {
    /// The database the server writes.
    let database: FleetDatabase
    /// The port it listens on.
    let port: Int
    /// The app the devices upload to.
    let app: CreatedApp
    /// The server's configuration (connections to PostgreSQL, body limit).
    let configuration: ServerConfiguration
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Starts a server on `database` (migrations applied before it listens) and creates an app.
    /// `REWIND_BENCH_REQUESTS_PER_INGEST_KEY` sets ``ServerConfiguration/requestsPerIngestKey``
    /// (its default otherwise; the run says which).
    static func start(database: FleetDatabase) async throws -> FleetServer {
        var configuration = ServerConfiguration(database: database.url, host: "127.0.0.1", port: 0, logLevel: .warning)
        if let limit = ProcessInfo.processInfo.environment["REWIND_BENCH_REQUESTS_PER_INGEST_KEY"].flatMap(Int.init) {
            configuration.requestsPerIngestKey = limit
        }
        report("server: \(configuration.requestsPerIngestKey) requests of the ingest key at once")
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    RewindServer(configuration: configuration, logger: FleetCluster.logger).service { port in
                        continuation.yield(port)
                    }
                ],
                logger: FleetCluster.logger))
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value  // the server stopped before listening: its error says why
            throw FleetSetupError("the server stopped before listening")
        }
        let app = try await database.withClient { client in
            try await KeyRegistry(client: client, logger: FleetCluster.logger).createApp(named: "fleet-bench")
        }
        return FleetServer(
            database: database, port: port, app: app, configuration: configuration, group: group, task: task)
    }

    private init(
        database: FleetDatabase, port: Int, app: CreatedApp, configuration: ServerConfiguration,
        group: ServiceGroup, task: Task<Void, any Error>
    ) {
        self.database = database
        self.port = port
        self.app = app
        self.configuration = configuration
        self.group = group
        self.task = task
    }

    /// Shuts the server down and waits until it has stopped.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}
