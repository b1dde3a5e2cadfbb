import Foundation
import Logging
import RewindServer
import ServiceLifecycle

/// A real `RewindServer` on a free port of 127.0.0.1 and a test database, with an app and its
/// keys; stopped by ``stop()`` (a graceful shutdown, as on SIGTERM).
final class TestServer: Sendable {
    let database: TestDatabase
    let port: Int
    let app: CreatedApp
    /// The configuration it runs with.
    let configuration: ServerConfiguration
    /// Each change of the database's availability, as the server acts on it.
    let databaseStatus: AsyncStream<DatabaseStatus>
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Starts a server on `database` (a new one by default), configured as `configure` says, and
    /// creates an app.
    static func start(
        database: TestDatabase? = nil, maximumBodyBytes: Int = ServerConfiguration.defaultMaximumBodyBytes,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let database = if let database { database } else { try await TestDatabase.make() }
        var configuration = ServerConfiguration(
            database: database.url, host: "127.0.0.1", port: 0, maximumBodyBytes: maximumBodyBytes, logLevel: .warning)
        configure(&configuration)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let (statuses, status) = AsyncStream.makeStream(of: DatabaseStatus.self)
        let service = RewindServer(configuration: configuration, logger: testLogger).service(
            onListening: { port in continuation.yield(port) }, onDatabaseStatus: { status.yield($0) })
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [service], logger: testLogger))
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        // Cancelled (the suite's time limit) before it listens: the server is cancelled too.
        let listening = await withTaskCancellationHandler {
            await iterator.next()
        } onCancel: {
            task.cancel()
        }
        guard let port = listening else {
            // The server stopped before listening: its error says why.
            try await task.value
            throw StartError()
        }
        let app = try await database.withClient { client in
            try await KeyRegistry(client: client, logger: testLogger).createApp(named: "app-\(UUID().uuidString)")
        }
        return TestServer(
            database: database, port: port, app: app, configuration: configuration, databaseStatus: statuses,
            group: group, task: task)
    }

    struct StartError: Error {}

    private init(
        database: TestDatabase, port: Int, app: CreatedApp, configuration: ServerConfiguration,
        databaseStatus: AsyncStream<DatabaseStatus>, group: ServiceGroup, task: Task<Void, any Error>
    ) {
        self.database = database
        self.port = port
        self.app = app
        self.configuration = configuration
        self.databaseStatus = databaseStatus
        self.group = group
        self.task = task
    }

    /// Another app on the same server.
    func createApp(named name: String = "other-\(UUID().uuidString)") async throws -> CreatedApp {
        try await database.withClient { client in
            try await KeyRegistry(client: client, logger: testLogger).createApp(named: name)
        }
    }

    /// Shuts the server down and waits until it has stopped.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        // Cancelled (the suite's time limit) during the shutdown: the server is cancelled too.
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Sends a request and returns the whole response.
    func request(
        _ method: String, _ path: String, key: APIKey? = nil, body: [UInt8]? = nil,
        headers: [(String, String)] = []
    ) async throws -> HTTPTestResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let key { head += "Authorization: Bearer \(key.token)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body {
            // The batch's type unless the caller says another (or none, with an empty value).
            if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
                head += "Content-Type: \(IngestionBatch.mediaType)\r\n"
            }
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        return try await RawHTTP.exchange(port: port, bytes: Array(head.utf8) + (body ?? []))
    }

    /// Uploads `batch` for `storeID` with `key` (the app's ingestion key by default).
    func upload(_ batch: IngestionBatch, store storeID: UUID, key: APIKey? = nil) async throws -> HTTPTestResponse {
        try await request(
            "POST", "/v1/stores/\(storeID.uuidString)/records", key: key ?? app.ingestKey, body: batch.encoded())
    }

    /// The server's next expected sequence for `storeID`, as `key`'s app sees it.
    func position(store storeID: UUID, key: APIKey? = nil) async throws -> UInt64 {
        let response = try await request("GET", "/v1/stores/\(storeID.uuidString)/position", key: key ?? app.readKey)
        guard response.status == 200 else { throw UnexpectedResponse(response: response) }
        return try response.json(Position.self).nextSequence
    }

    struct Position: Decodable { var nextSequence: UInt64 }

    struct UnexpectedResponse: Error, CustomStringConvertible {
        var response: HTTPTestResponse
        var description: String { "unexpected response \(response.status): \(response.text)" }
    }
}

/// The server's erasure notice, named where RewindStore's (the device's, of the same name) is not
/// imported: the tests that import both say this.
typealias ServerErasureNotice = ErasureNotice
