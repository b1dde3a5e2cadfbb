import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The server's connections to PostgreSQL: a postgres-nio `PostgresClient` (a connection pool) and
/// the availability probe (``DatabaseAvailability``), run as one `Service`.
///
/// The pool is replaced by a fresh one at each change of availability. postgres-nio's pool (1.33)
/// cannot be configured for outages: after a failed connection it retries with a backoff that
/// grows to 60 s (100 ms × 1.25ⁿ), so it went on failing for ~15 s after PostgreSQL came back
/// from a one-minute outage, and it holds requests for a connection until a circuit breaker trips
/// after 60 s. Dropping the pool when the database goes away fails the requests it holds at once;
/// a fresh pool when it answers again connects at the first request.
///
/// A pool made for a client of the caller's (``init(fixed:)``) is never replaced and never probed.
final class DatabasePool: Service, Sendable {
    /// What the probe last saw.
    let availability: DatabaseAvailability
    private let database: DatabaseURL?
    private let makeClient: @Sendable () -> PostgresClient
    private let logger: Logger
    private let current: Mutex<RunningClient>
    private let launches: AsyncStream<RunningClient>
    private let launcher: AsyncStream<RunningClient>.Continuation

    /// The pool for `configuration`'s database, probed by its ``OutagePolicy``; `changed` is
    /// called with each new availability once it is in force.
    init(configuration: ServerConfiguration, logger: Logger, changed: @escaping @Sendable (DatabaseStatus) -> Void) {
        // postgres-nio's own connection timeout (10 s): the probe, not the pool, decides that the
        // database is gone, and a fresh pool replaces this one then; a shorter one failed requests
        // with 503s on a busy machine while PostgreSQL was up.
        let clientConfiguration = configuration.database.clientConfiguration(
            maximumConnections: configuration.maximumDatabaseConnections)
        let makeClient: @Sendable () -> PostgresClient = {
            PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
        }
        self.makeClient = makeClient
        self.database = configuration.database
        self.logger = logger
        availability = DatabaseAvailability(policy: configuration.outages, changed: changed)
        let first = RunningClient(makeClient())
        current = Mutex(first)
        (launches, launcher) = AsyncStream.makeStream(of: RunningClient.self)
        launcher.yield(first)
    }

    /// A pool that is `client` (run by the caller), always deemed available.
    init(fixed client: PostgresClient) {
        makeClient = { client }
        database = nil
        logger = Logger(label: "rewind-server")
        availability = DatabaseAvailability(policy: OutagePolicy())
        current = Mutex(RunningClient(client, started: true))
        (launches, launcher) = AsyncStream.makeStream(of: RunningClient.self)
        launcher.finish()
    }

    /// The client to use now (leased per statement or transaction, never kept).
    var client: PostgresClient { current.withLock { $0.client } }

    /// The result of `body` run with the current client. When the pool is replaced while `body`
    /// runs (the database went away or came back: the old client is closed, and what it was doing
    /// fails), `body`'s error comes out as ``DatabasePoolReplaced`` (an outage, answered 503)
    /// rather than as postgres-nio's `poolShutdown` or a closed connection.
    func withClient<R: Sendable>(_ body: @Sendable (PostgresClient) async throws -> R) async throws -> R {
        let running = current.withLock { $0 }
        do {
            return try await body(running.client)
        } catch {
            if running.isRetired { throw DatabasePoolReplaced(underlying: error) }
            throw error
        }
    }

    /// Returns once the current client runs (its first query would otherwise make postgres-nio
    /// log a warning).
    func running() async {
        await current.withLock { $0 }.started()
    }

    /// Runs the clients and the probe until the graceful shutdown (the server's services stop in
    /// reverse order: this one last).
    func run() async throws {
        guard let database else { return }
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    await self.availability.probe(database, logger: self.logger) { _ in await self.replaceClient() }
                }
                for await running in self.launches {
                    group.addTask { await running.run() }
                }
                group.cancelAll()
            }
        }
        launcher.finish()
    }

    /// A fresh client, running before it replaces the current one; the old one is closed (the
    /// requests it holds fail, and are answered 503).
    func replaceClient() async {
        let fresh = RunningClient(makeClient())
        guard case .enqueued = launcher.yield(fresh) else { return }
        await fresh.started()
        let old = current.withLock { current in
            defer { current = fresh }
            return current
        }
        old.retire()
    }
}

/// Work on the database failed because the connection pool it ran on was replaced meanwhile
/// (the database went away or came back, see ``DatabasePool``); a transaction it had begun was
/// rolled back. An outage: requests are answered 503 with `Retry-After`.
struct DatabasePoolReplaced: Error, CustomStringConvertible {
    /// What the work failed with (postgres-nio's `poolShutdown`, a closed connection, …).
    var underlying: any Error
    var description: String {
        "the database went away or came back while this ran, and the connection pool it ran on was replaced (\(String(reflecting: underlying)))"
    }
}

/// A `PostgresClient` and the task that runs it, until retired.
private final class RunningClient: Sendable {
    let client: PostgresClient
    private let retired = Mutex(false)
    private let retirements: AsyncStream<Void>
    private let retirement: AsyncStream<Void>.Continuation
    private let state: Mutex<(started: Bool, waiting: [CheckedContinuation<Void, Never>])>

    init(_ client: PostgresClient, started: Bool = false) {
        self.client = client
        (retirements, retirement) = AsyncStream.makeStream(of: Void.self)
        state = Mutex((started, []))
    }

    /// Runs the client until retired or cancelled.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                self.markStarted()
                await self.client.run()
            }
            group.addTask {
                for await _ in self.retirements {}
            }
            // Whichever ends first (retired, or the client stopped) ends the other.
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// Stops the client (cancelling its run: its connections close, its waiting requests fail).
    func retire() {
        retired.withLock { $0 = true }
        retirement.finish()
    }

    /// Whether ``retire()`` was called (what runs on the client then fails).
    var isRetired: Bool { retired.withLock { $0 } }

    /// Returns once the client runs, or when the caller is cancelled.
    func started() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.started { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            markStarted()
        }
    }

    private func markStarted() {
        let waiting = state.withLock { state in
            state.started = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
