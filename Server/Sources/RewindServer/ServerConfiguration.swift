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

    /// The default largest body: 8 MiB (a batch of a few thousand records).
    public static let defaultMaximumBodyBytes = 8 * 1024 * 1024

    /// A configuration with the defaults for everything but the database.
    public init(
        database: DatabaseURL, host: String = "127.0.0.1", port: Int = 8080,
        maximumBodyBytes: Int = ServerConfiguration.defaultMaximumBodyBytes,
        maximumDatabaseConnections: Int = 10, logLevel: Logger.Level = .info, retentionInterval: Duration = .seconds(3600)
    ) {
        self.retentionInterval = retentionInterval
        self.database = database
        self.host = host
        self.port = port
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumDatabaseConnections = maximumDatabaseConnections
        self.logLevel = logLevel
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
            throw ParseError(reason: "the scheme must be postgres:// or postgresql://, not \(components.scheme ?? "none")")
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
    func clientConfiguration(maximumConnections: Int) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let unixSocketPath {
            configuration = .init(unixSocketPath: unixSocketPath, username: username, password: password, database: database)
        } else {
            configuration = .init(host: host ?? "127.0.0.1", port: port, username: username, password: password,
                                  database: database, tls: .disable)
        }
        configuration.options.maximumConnections = maximumConnections
        return configuration
    }
}
