import Foundation
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import RewindWire

/// The HTTP API (see Server/README.md): health, ingestion, a store's position; the queries and
/// pages are in ProjectionRoutes.swift.
struct Routes: Sendable {
    /// The server's pool (``client`` is its current client).
    let database: DatabasePool
    let keys: KeyRegistry
    let ingestion: Ingestion
    let maximumBodyBytes: Int
    let logger: Logger
    /// Woken after each stored batch, to fold it into the projections.
    let catchUp: ProjectionCatchUp
    /// Each key's requests in progress (``admit(_:)``).
    let keyConcurrency: KeyConcurrency
    /// The most requests of a read or erase key at once.
    let requestsPerKey: Int
    /// The most requests of an ingest key at once.
    let requestsPerIngestKey: Int
    /// The client to use now (the pool's current one, replaced after outages).
    var client: PostgresClient { database.client }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: LogRequestsMiddleware(.info))
        // Every error answer is JSON, whichever layer failed (the routes, the outage check,
        // Hummingbird's own 404 and 413).
        router.add(middleware: JSONErrorMiddleware(retryAfterSeconds: database.availability.policy.retryAfterSeconds))
        router.add(middleware: DatabaseOutageMiddleware(availability: database.availability))
        router.add(middleware: KeyConcurrencyMiddleware(concurrency: keyConcurrency))
        router.get("health") { _, _ in try await health() }
        router.post("v1/stores/:storeID/records") { request, context in
            try await upload(request, context: context)
        }
        router.get("v1/stores/:storeID/position") { request, context in
            try await position(request, context: context)
        }
        router.get("v1/sessions") { request, _ in try await sessions(request) }
        addProjectionRoutes(to: router)
        addReplayRoutes(to: router)
        addUpgradeCheckRoutes(to: router)
        addErasureRoutes(to: router)
        return router
    }

    // MARK: Endpoints

    private func health() async throws -> Response {
        struct Health: Encodable {
            var status: String
            var schemaVersion: Int
        }
        let policy = database.availability.policy
        do {
            // No longer than the probe waits: a database that hangs is a 503 within that time.
            let client = self.client
            let logger = self.logger
            let limit = policy.silenceLimit
            let version = try await withTimeLimit(limit, ProbeTimedOut(limit: limit)) {
                var version = 0
                for value in try await client.rows(
                    "SELECT coalesce(max(version), 0) FROM schema_migrations", logger: logger
                ).decode(Int.self) {
                    version = value
                }
                return version
            }
            return try JSONResponse.make(body: Health(status: "ok", schemaVersion: version))
        } catch {
            logger.warning("health check failed", metadata: ["error": "\(String(reflecting: error))"])
            throw APIError.databaseUnavailable(retryAfterSeconds: policy.retryAfterSeconds)
        }
    }

    private func upload(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let caller = try await authenticate(request, needs: .ingest)
        let storeID = try storeID(context)
        try requireMediaType(IngestionBatch.mediaType, of: request)
        let body = try await collectBody(of: request)
        let result = try await ingestion.ingest(body: body.readableBytesView, storeID: storeID, appID: caller.appID)
        if result.stored > 0 || result.erased > 0 { catchUp.wake(appID: caller.appID, storeID: storeID) }
        return try JSONResponse.make(body: result)
    }

    private func position(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let caller = try await authenticate(request, needs: nil)
        guard caller.kind != .erase else { throw APIError.forbidden(caller.kind, needs: .ingest) }
        let storeID = try storeID(context)
        let next = try await ingestion.position(storeID: storeID, appID: caller.appID)
        // Whether the asking key may upload: an uploader with nothing to send learns from its
        // first question that its key could not send anything either.
        return try JSONResponse.make(
            body: StorePosition(storeID: storeID, nextSequence: next, mayUpload: caller.kind == .ingest))
    }

    // MARK: Helpers

    /// The caller of a request whose key is of kind `needs` (either kind when `nil`).
    /// - Throws: ``APIError`` 401 without a valid key, 403 with one of the other kind.
    func authenticate(_ request: Request, needs: KeyKind?) async throws -> Caller {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
            let caller = try await keys.authenticate(token: String(header.dropFirst("Bearer ".count)))
        else { throw APIError.unauthorized }
        if let needs, caller.kind != needs { throw APIError.forbidden(caller.kind, needs: needs) }
        try await admit(caller)
        return caller
    }

    /// Takes a slot of the caller's key for the rest of the request (``KeyConcurrency``), waiting
    /// for one while the key has ``ServerConfiguration/requestsPerKey`` requests in progress
    /// (``ServerConfiguration/requestsPerIngestKey`` for an ingest key).
    /// - Throws: ``APIError`` 429 with `Retry-After` when none freed in time.
    func admit(_ caller: Caller) async throws {
        guard let held = KeyConcurrency.held, held.hold(caller.keyID) else { return }
        let limit = caller.kind == .ingest ? requestsPerIngestKey : requestsPerKey
        guard await keyConcurrency.acquire(caller.keyID, limit: limit) else {
            _ = held.take()
            throw APIError.tooManyRequests(limit: limit)
        }
    }

    func storeID(_ context: BasicRequestContext) throws -> UUID {
        guard let text = context.parameters.get("storeID"), let id = UUID(uuidString: text) else {
            throw APIError(.badRequest, "the store id must be a UUID (the store's meta.store-id)")
        }
        return id
    }

    /// The request's body, at most `maximumBodyBytes` (a larger one, declared or sent, is a 413
    /// before more of it is read).
    func collectBody(of request: Request) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumBodyBytes {
            throw bodyTooLarge()
        }
        var request = request
        do {
            return try await request.collectBody(upTo: maximumBodyBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw bodyTooLarge()
        } catch is NIOTooManyBytesError {
            // A streamed (chunked) body past the limit.
            throw bodyTooLarge()
        }
    }

    /// Refuses (415) a request whose `Content-Type` is not `mediaType` (parameters aside).
    func requireMediaType(_ mediaType: String, of request: Request) throws {
        let declared = request.headers[.contentType]
        let type = declared?.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces)
            .lowercased()
        guard type == mediaType else {
            throw APIError(
                .unsupportedMediaType,
                "the body must be a record batch (Content-Type: \(mediaType)), not \(declared.map { "'\($0)'" } ?? "a body without Content-Type")",
                details: ["expectedContentType": .text(mediaType)])
        }
    }

    func bodyTooLarge() -> APIError {
        APIError(
            .contentTooLarge, "the body is larger than \(maximumBodyBytes) bytes: send smaller batches",
            details: ["maximumBodyBytes": .integer(Int64(maximumBodyBytes))])
    }
}
