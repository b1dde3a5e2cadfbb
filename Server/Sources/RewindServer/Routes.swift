import Foundation
import Hummingbird
import Logging
import PostgresNIO
import RewindWire

/// The HTTP API (see Server/README.md): health, ingestion, a store's position; the queries and
/// pages are in ProjectionRoutes.swift.
struct Routes: Sendable {
    let client: PostgresClient
    let keys: KeyRegistry
    let ingestion: Ingestion
    let maximumBodyBytes: Int
    let logger: Logger
    /// Woken after each stored batch, to fold it into the projections.
    let catchUp: ProjectionCatchUp

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: LogRequestsMiddleware(.info))
        router.add(middleware: ErrorLoggingMiddleware())
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
        struct Health: Encodable { var status: String; var schemaVersion: Int }
        do {
            var version = 0
            for try await value in try await client.query(
                "SELECT coalesce(max(version), 0) FROM schema_migrations", logger: logger
            ).decode(Int.self) {
                version = value
            }
            return try JSONResponse.make(body: Health(status: "ok", schemaVersion: version))
        } catch {
            logger.error("health check failed", metadata: ["error": "\(String(reflecting: error))"])
            throw APIError(.serviceUnavailable, "the database does not answer")
        }
    }

    private func upload(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let caller = try await authenticate(request, needs: .ingest)
        let storeID = try storeID(context)
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
        return try JSONResponse.make(body: StorePosition(storeID: storeID, nextSequence: next, mayUpload: caller.kind == .ingest))
    }

    // MARK: Helpers

    /// The caller of a request whose key is of kind `needs` (either kind when `nil`).
    /// - Throws: ``APIError`` 401 without a valid key, 403 with one of the other kind.
    func authenticate(_ request: Request, needs: KeyKind?) async throws -> Caller {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
              let caller = try await keys.authenticate(token: String(header.dropFirst("Bearer ".count)))
        else { throw APIError.unauthorized }
        if let needs, caller.kind != needs { throw APIError.forbidden(caller.kind, needs: needs) }
        return caller
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
        }
    }

    func bodyTooLarge() -> APIError {
        APIError(.contentTooLarge, "the body is larger than \(maximumBodyBytes) bytes: send smaller batches",
                 details: ["maximumBodyBytes": .integer(Int64(maximumBodyBytes))])
    }
}
