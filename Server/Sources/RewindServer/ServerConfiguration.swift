import Foundation
import Logging
import PostgresNIO

/// Everything `rewind-server` needs to run: where PostgreSQL is, where to listen, how large a
/// request body may be. Filled from flags and the environment by the executable, or directly by
/// tests.
public struct ServerConfiguration: Sendable {
    /// The PostgreSQL database to connect to.
    public var database: DatabaseURL
    /// The address to listen on (`127.0.0.1` by default: only this machine).
    public var host: String
    /// The port to listen on; `0` asks the system for a free one (see ``RewindServer/run(onListening:)``).
    public var port: Int
    /// The largest request body accepted, in bytes; a larger one is answered 413.
    public var maximumBodyBytes: Int
    /// The most connections kept open to PostgreSQL.
    public var maximumDatabaseConnections: Int
    /// The least severe level of log message written.
    public var logLevel: Logger.Level
    /// How often the retention pass runs (``Retention``; the first once the schema is migrated).
    public var retentionInterval: Duration
    /// How the server notices that PostgreSQL went away and came back (see ``OutagePolicy``).
    public var outages: OutagePolicy
    /// The most requests one read or erase key may have in progress at once; more wait for one
    /// of them to end, at most ``keyWait``, then are answered 429. By default the connections but
    /// the projections' catch-up's and one (7 of 10), so one key's requests never take every
    /// connection from the others'.
    public var requestsPerKey: Int
    /// The most requests one ingest key may have in progress at once (its app's devices share
    /// it). By default no bound of its own (`Int.max`): the pool's connections bound them, and a
    /// bound of 7 of 10 cost ingestion a quarter of its rate (0.43× `COPY` against 0.60×
    /// unbounded, in one run; Benchmarks/HISTORY.md, 2026-11-29 11:00).
    public var requestsPerIngestKey: Int
    /// How long a request waits when its key has ``requestsPerKey`` requests in progress.
    public var keyWait: Duration

    /// The default largest body: 8 MiB (a batch of a few thousand records).
    public static let defaultMaximumBodyBytes = 8 * 1024 * 1024

    /// A configuration with the defaults for everything but the database.
    public init(
        database: DatabaseURL, host: String = "127.0.0.1", port: Int = 8080,
        maximumBodyBytes: Int = ServerConfiguration.defaultMaximumBodyBytes,
        maximumDatabaseConnections: Int = 10, logLevel: Logger.Level = .info,
        retentionInterval: Duration = .seconds(3600),
        outages: OutagePolicy = OutagePolicy(), requestsPerKey: Int? = nil, requestsPerIngestKey: Int? = nil,
        keyWait: Duration = .seconds(10)
    ) {
        self.requestsPerKey =
            requestsPerKey ?? max(1, maximumDatabaseConnections - ProjectionCatchUp.concurrentStores - 1)
        self.requestsPerIngestKey = requestsPerIngestKey ?? .max
        self.keyWait = keyWait
        self.retentionInterval = retentionInterval
        self.outages = outages
        self.database = database
        self.host = host
        self.port = port
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumDatabaseConnections = maximumDatabaseConnections
        self.logLevel = logLevel
    }
}

/// How the server watches PostgreSQL (``DatabaseAvailability``): a connection of its own runs a
/// statement every ``probeInterval``. That connection closing, a connection refused or a statement
/// failing marks the database unavailable at once. A probe (a connection or a statement) that
/// takes longer than ``probeTimeout`` is only a miss, tried again on a fresh connection: a busy
/// machine can hold up one statement for a second or more, and ``probeAttempts`` consecutive misses
/// (a database that has gone silent) mark it unavailable. While it is, requests are answered 503 at
/// once with `Retry-After`, and the probe connects again every ``reconnectInterval``; the first
/// connection that succeeds gives the server a fresh connection pool and marks it available.
///
/// So the server says 503 at once when the database closes its connections or refuses new ones,
/// at most about ``probeInterval`` + ``probeAttempts`` × (``probeTimeout`` + ``reconnectInterval``)
/// after it goes silent (``silenceLimit`` plus the interval), and serves again at most
/// ``reconnectInterval`` after it accepts connections again (plus one connection's set-up).
public struct OutagePolicy: Sendable, Equatable {
    /// How often the probe runs a statement while the database is available.
    public var probeInterval: Duration
    /// The longest a probe (a connection or a statement) may take before it counts as a miss.
    public var probeTimeout: Duration
    /// How many consecutive misses mark the database unavailable (at least 1).
    public var probeAttempts: Int
    /// How often the probe tries to connect while the database is unavailable, and again after a miss.
    public var reconnectInterval: Duration
    /// What the `Retry-After` header of a 503 says (whole seconds, at least 1).
    public var retryAfter: Duration

    /// The defaults: a probe every 0.5 s with a 2 s limit, unavailable after 3 misses in a row
    /// (silent for about 6.8 s; at once when the database closes or refuses connections), a
    /// connection attempt every 0.1 s while unavailable, `Retry-After: 1`.
    public init(
        probeInterval: Duration = .milliseconds(500), probeTimeout: Duration = .seconds(2), probeAttempts: Int = 3,
        reconnectInterval: Duration = .milliseconds(100), retryAfter: Duration = .seconds(1)
    ) {
        self.probeInterval = probeInterval
        self.probeTimeout = probeTimeout
        self.probeAttempts = max(1, probeAttempts)
        self.reconnectInterval = reconnectInterval
        self.retryAfter = retryAfter
    }

    /// How long the database may leave the probe without an answer before it is deemed silent
    /// (``probeAttempts`` × ``probeTimeout``); also the limit of `/health`'s own query.
    public var silenceLimit: Duration { probeTimeout * probeAttempts }

    /// `Retry-After`'s value: ``retryAfter`` in whole seconds, rounded up, at least 1.
    public var retryAfterSeconds: Int {
        let (seconds, attoseconds) = retryAfter.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }
}

/// A PostgreSQL connection URL: `postgres://user[:password]@host[:port]/database`, or with
/// `?host=/socket/directory` for a unix socket (the form `DATABASE_URL` usually takes).
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    /// The server's host name or address (`nil` when a unix socket is used).
    public var host: String?
    /// The server's TCP port.
    public var port: Int
    /// The path of the server's unix socket file, when it is reached that way.
    public var unixSocketPath: String?
    /// The role to log in as.
    public var username: String
    /// The role's password, if it needs one.
    public var password: String?
    /// The database's name.
    public var database: String

    /// What is wrong with a URL that cannot be used.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// The reason, naming the part of the URL at fault.
        public var reason: String
        /// Describes the error.
        public var description: String { "invalid database URL: \(reason)" }
    }

    /// Parses `text`.
    /// - Throws: ``ParseError`` naming what is missing or malformed.
    public init(_ text: String) throws(ParseError) {
        guard let components = URLComponents(string: text) else {
            throw ParseError(reason: "it is not a URL")
        }
        guard components.scheme == "postgres" || components.scheme == "postgresql" else {
            throw ParseError(
                reason: "the scheme must be postgres:// or postgresql://, not \(components.scheme ?? "none")")
        }
        guard let user = components.percentEncodedUser, !user.isEmpty else {
            throw ParseError(reason: "it names no user (postgres://USER@host/database)")
        }
        let name = String(components.percentEncodedPath.drop(while: { $0 == "/" }))
        guard !name.isEmpty else {
            throw ParseError(reason: "it names no database (postgres://user@host/DATABASE)")
        }
        username = user.removingPercentEncoding ?? user
        password = components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 }
        database = name.removingPercentEncoding ?? name
        port = components.port ?? 5432
        let socketDirectory = components.queryItems?.first(where: { $0.name == "host" })?.value
        if let socketDirectory, socketDirectory.hasPrefix("/") {
            unixSocketPath = socketDirectory + "/.s.PGSQL.\(port)"
            host = nil
        } else {
            guard let host = components.host, !host.isEmpty else {
                throw ParseError(reason: "it names no host (postgres://user@HOST/database, or ?host=/socket/dir)")
            }
            self.host = host
            unixSocketPath = nil
        }
    }

    /// The same server and role, another database (tests create one each).
    public func with(database: String) -> DatabaseURL {
        var copy = self
        copy.database = database
        return copy
    }

    /// The URL without its password.
    public var description: String {
        let place = unixSocketPath.map { "?socket=\($0)" } ?? ""
        return "postgres://\(username)@\(host ?? "")\(host == nil ? "" : ":\(port)")/\(database)\(place)"
    }

    /// The client configuration for this URL (TLS off: the server is expected on this machine or
    /// a private network; see Server/README.md).
    func clientConfiguration(maximumConnections: Int, connectTimeout: Duration = .seconds(10))
        -> PostgresClient.Configuration
    {
        var configuration: PostgresClient.Configuration = endpoint()
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = connectTimeout
        return configuration
    }

    /// The configuration of a single connection (the availability probe's), with `connectTimeout`.
    func connectionConfiguration(connectTimeout: Duration) -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration = endpoint()
        configuration.options.connectTimeout = .nanoseconds(Int64(connectTimeout / .nanoseconds(1)))
        return configuration
    }

    /// Where and as whom to connect, in either kind of configuration: the unix socket, or TCP
    /// without TLS.
    private func endpoint<Configuration: PostgresEndpoint>() -> Configuration {
        if let unixSocketPath {
            Configuration(unixSocketPath: unixSocketPath, username: username, password: password, database: database)
        } else {
            Configuration(
                host: host ?? "127.0.0.1", port: port, username: username, password: password, database: database)
        }
    }
}

/// postgres-nio's two configurations (a pool's and a connection's), made the same way.
protocol PostgresEndpoint {
    associatedtype TLS
    init(unixSocketPath: String, username: String, password: String?, database: String?)
    init(host: String, port: Int, username: String, password: String?, database: String?, tls: TLS)
    static var noTLS: TLS { get }
}

extension PostgresEndpoint {
    init(host: String, port: Int, username: String, password: String?, database: String?) {
        self.init(host: host, port: port, username: username, password: password, database: database, tls: Self.noTLS)
    }
}

extension PostgresClient.Configuration: PostgresEndpoint {
    static var noTLS: TLS { .disable }
}

extension PostgresConnection.Configuration: PostgresEndpoint {
    static var noTLS: TLS { .disable }
}
