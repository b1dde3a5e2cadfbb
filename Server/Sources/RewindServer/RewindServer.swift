import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization
import UnixSignals

/// The fleet server: a PostgreSQL client, the schema migrations (applied before it listens) and
/// the HTTP API, run as one `ServiceGroup` that shuts down gracefully.
public struct RewindServer: Sendable {
    /// The configuration it runs with.
    public let configuration: ServerConfiguration
    let logger: Logger

    /// A server for `configuration`, logging to `logger`.
    public init(configuration: ServerConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Connects to PostgreSQL, applies the migrations the database has not had, then listens
    /// until the task is cancelled or (when `gracefulShutdownSignals` is not empty) one of those
    /// signals arrives; requests in flight finish first.
    ///
    /// - Parameter onListening: called once listening, with the port (the one the system chose
    ///   when the configuration says `0`).
    public func run(
        gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint],
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [service(onListening: onListening)], gracefulShutdownSignals: gracefulShutdownSignals,
                logger: logger))
        try await group.run()
    }

    /// The server as a `Service` (PostgreSQL client, migrations before listening, HTTP), for a
    /// `ServiceGroup` of the caller's: its graceful shutdown lets requests in flight finish.
    ///
    /// - Parameter onDatabaseStatus: called with each change of the database's availability once
    ///   the server acts on it (``OutagePolicy``: 503s while unavailable).
    public func service(
        onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onDatabaseStatus: @escaping @Sendable (DatabaseStatus) -> Void = { _ in }
    ) -> some Service {
        let catchUpBox = CatchUpBox()
        let database = DatabasePool(configuration: configuration, logger: logger) { status in
            // What failed during the outage is folded once the database answers again.
            if status == .available { catchUpBox.catchUp?.wake() }
            onDatabaseStatus(status)
        }
        let catchUp = ProjectionCatchUp(database: database, logger: logger)
        catchUpBox.catchUp = catchUp
        let retention = RetentionService(database: database, interval: configuration.retentionInterval, logger: logger)
        let routes = Routes(
            database: database, keys: KeyRegistry(database: database, logger: logger),
            ingestion: Ingestion(database: database, logger: logger),
            maximumBodyBytes: configuration.maximumBodyBytes, logger: logger, catchUp: catchUp,
            keyConcurrency: KeyConcurrency(wait: configuration.keyWait), requestsPerKey: configuration.requestsPerKey,
            requestsPerIngestKey: configuration.requestsPerIngestKey)
        let logger = self.logger
        let url = configuration.database
        var application = Application(
            router: routes.router(),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "rewind-server"),
            // The catch-up and retention stop before the pool (services stop in reverse order).
            services: [database, catchUp, retention],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("listening", metadata: ["port": "\(port)"])
                await onListening(port)
            },
            logger: logger)
        application.beforeServerStarts {
            logger.info("applying schema migrations", metadata: ["database": "\(url)"])
            await database.running()
            try await database.applyMigrations(logger: logger)
            // The projections catch up with what the database holds.
            catchUp.wake()
            retention.start()
        }
        return application
    }

    /// Runs `body` with a client of `database` running (for the admin commands), then stops it.
    @discardableResult
    public static func withClient<R: Sendable>(
        _ database: DatabaseURL, logger: Logger, _ body: @Sendable (PostgresClient) async throws -> R
    ) async throws -> R {
        let client = PostgresClient(
            configuration: database.clientConfiguration(maximumConnections: 2), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            // `body` starts once the task running the client has begun: `run()` marks the client
            // running in its first statement, right after the signal, so `body`'s first query does
            // not find it idle (postgres-nio then logs a warning, which `create-app` printed).
            await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
                group.addTask {
                    started.resume()
                    await client.run()
                }
            }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}

/// The catch-up, for the pool's callback made before it (set once, before the server runs).
private final class CatchUpBox: Sendable {
    private let value = Mutex<ProjectionCatchUp?>(nil)
    var catchUp: ProjectionCatchUp? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
