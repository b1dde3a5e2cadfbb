import ArgumentParser
import Foundation
import Logging
import RewindServer

/// `rewind-server`: the fleet server (`serve`, the default) and its admin commands.
@main
struct RewindServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewind-server",
        abstract: "Gathers Rewind stores' records from many devices in PostgreSQL.",
        subcommands: [Serve.self, CreateApp.self, AddKey.self, SetRetention.self],
        defaultSubcommand: Serve.self)
}

/// The options every subcommand shares.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help: "postgres://user[:password]@host[:port]/database (default: $DATABASE_URL).")
    var databaseURL: String?

    @Option(
        name: .customLong("log-level"),
        help: "trace, debug, info, notice, warning, error or critical (default: $LOG_LEVEL or info).")
    var logLevel: String?

    func database() throws -> DatabaseURL {
        guard let text = databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"] else {
            throw ValidationError("no database: pass --database-url or set DATABASE_URL")
        }
        do {
            return try DatabaseURL(text)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func level() throws -> Logger.Level {
        let text = logLevel ?? ProcessInfo.processInfo.environment["LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: text) else {
            throw ValidationError("unknown log level \(text.debugDescription)")
        }
        return level
    }

    func logger() throws -> Logger {
        LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
        var logger = Logger(label: "rewind-server")
        logger.logLevel = try level()
        return logger
    }
}

/// Runs the server until SIGTERM or SIGINT.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the schema migrations, then serve the API until SIGTERM or SIGINT.")

    @OptionGroup var options: DatabaseOptions

    @Option(help: "The address to listen on (default: $REWIND_SERVER_HOST or 127.0.0.1).")
    var host: String?

    @Option(help: "The port to listen on (default: $REWIND_SERVER_PORT or 8080; 0 picks a free one).")
    var port: Int?

    @Option(
        name: .customLong("max-body-bytes"),
        help: "The largest request body accepted (default: $REWIND_SERVER_MAX_BODY_BYTES or 8 MiB).")
    var maximumBodyBytes: Int?

    @Option(
        name: .customLong("requests-per-key"),
        help: """
            The most requests one read or erase key may have in progress at once; more wait up \
            to 10 s, then get a 429 (default: the database connections minus 3, 7).
            """)
    var requestsPerKey: Int?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let port =
            try port ?? environment["REWIND_SERVER_PORT"].map { text in
                guard let port = Int(text) else { throw ValidationError("REWIND_SERVER_PORT is not a number: \(text)") }
                return port
            } ?? 8080
        let maximumBodyBytes =
            try maximumBodyBytes ?? environment["REWIND_SERVER_MAX_BODY_BYTES"].map { text in
                guard let bytes = Int(text) else {
                    throw ValidationError("REWIND_SERVER_MAX_BODY_BYTES is not a number: \(text)")
                }
                return bytes
            } ?? ServerConfiguration.defaultMaximumBodyBytes
        guard (0...65535).contains(port) else { throw ValidationError("the port must be from 0 to 65535") }
        guard maximumBodyBytes > 0 else { throw ValidationError("--max-body-bytes must be positive") }
        if let requestsPerKey, requestsPerKey < 1 { throw ValidationError("--requests-per-key must be positive") }
        let logger = try options.logger()
        let configuration = ServerConfiguration(
            database: try options.database(), host: host ?? environment["REWIND_SERVER_HOST"] ?? "127.0.0.1",
            port: port, maximumBodyBytes: maximumBodyBytes, logLevel: logger.logLevel, requestsPerKey: requestsPerKey)
        try await RewindServer(configuration: configuration, logger: logger).run()
        logger.info("stopped")
    }
}

/// Creates an app and prints its first ingestion and read keys.
struct CreateApp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-app",
        abstract: "Create an app with one ingestion key and one read key, and print the keys (shown only once).")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The app's name (unique).")
    var name: String

    @Option(
        name: .customLong("retention-days"),
        help: "Remove sessions whose last record is older than this many days (default: keep them).")
    var retentionDays: Int?

    func run() async throws {
        let logger = try options.logger()
        let database = try options.database()
        let name = self.name
        let retention = try retentionDays.map(retentionDuration)
        let created = try await RewindServer.withClient(database, logger: logger) { client in
            try await Migrations.apply(to: client, logger: logger)
            let registry = KeyRegistry(client: client, logger: logger)
            let created = try await registry.createApp(named: name)
            if let retention { try await registry.setRetention(retention, ofApp: created.appID) }
            return created
        }
        print("app \(created.name) (id \(created.appID))")
        print("ingest key: \(created.ingestKey.token)")
        print("read key:   \(created.readKey.token)")
    }
}

/// A retention period of `days` days.
func retentionDuration(days: Int) throws -> Duration {
    guard (1...365_000).contains(days) else { throw ValidationError("the retention must be from 1 to 365000 days") }
    return .seconds(Int64(days) * 86_400)
}

/// Adds a key of a kind to an app and prints it (an erase key, say: apps are created with an
/// ingestion key and a read key only).
struct AddKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-key",
        abstract: "Add a key (ingest, read or erase) to an app and print it (shown only once).")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The app's name.")
    var name: String

    @Option(help: "ingest, read or erase.")
    var kind: String

    func run() async throws {
        guard let kind = KeyKind(rawValue: kind) else {
            throw ValidationError("the kind must be ingest, read or erase")
        }
        let logger = try options.logger()
        let name = self.name
        let key = try await RewindServer.withClient(try options.database(), logger: logger) { client in
            try await Migrations.apply(to: client, logger: logger)
            let registry = KeyRegistry(client: client, logger: logger)
            return try await registry.addKey(kind: kind, toApp: try await registry.appID(named: name))
        }
        print("\(kind.rawValue) key: \(key.token)")
    }
}

/// Sets or clears an app's retention period.
struct SetRetention: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-retention",
        abstract:
            "Set how long an app's sessions are kept after their last record (--days N), or keep them (--forever).")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The app's name.")
    var name: String

    @Option(help: "Days a session is kept after its last record.")
    var days: Int?

    @Flag(help: "Keep sessions for ever (no retention).")
    var forever = false

    func validate() throws {
        guard (days != nil) != forever else { throw ValidationError("pass either --days N or --forever") }
    }

    func run() async throws {
        let logger = try options.logger()
        let name = self.name
        let retention = try days.map(retentionDuration)
        try await RewindServer.withClient(try options.database(), logger: logger) { client in
            try await Migrations.apply(to: client, logger: logger)
            let registry = KeyRegistry(client: client, logger: logger)
            try await registry.setRetention(retention, ofApp: try await registry.appID(named: name))
        }
        if let days {
            print("app \(name) keeps sessions \(days) days after their last record")
        } else {
            print("app \(name) keeps sessions for ever")
        }
    }
}
