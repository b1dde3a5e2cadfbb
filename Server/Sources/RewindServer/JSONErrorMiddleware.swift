import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import _ConnectionPoolModule

/// Makes every error answer the JSON the README promises (`{"error": …}`): an ``APIError`` as it
/// is; Hummingbird's own errors (404 of an unknown path, 413 of a streamed body past its limit,
/// which it answers without a body) with their status; the database gone (``DatabaseUnavailable``,
/// a closed connection, PostgreSQL shutting down or starting up) a 503 with `Retry-After`; anything
/// else a 500, logged at error level so a failed query is never silent.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// `Retry-After`'s seconds on a 503.
    let retryAfterSeconds: Int

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as NIOTooManyBytesError {
            throw APIError(
                .contentTooLarge,
                "the body is larger than \(error.maxBytes.map(String.init) ?? "the largest accepted") bytes: send smaller batches"
            )
        } catch let error as any HTTPResponseError {
            throw APIError(
                error.status, (error as? HTTPError)?.body ?? "\(error.status.code) \(error.status.reasonPhrase)")
        } catch is DatabaseUnavailable {
            // Refused before touching the database: the probe logged the outage once.
            throw APIError.databaseUnavailable(retryAfterSeconds: retryAfterSeconds)
        } catch let error where isDatabaseOutage(error) {
            context.logger.warning(
                "request failed: the database does not answer",
                metadata: [
                    "method": "\(request.method)", "path": "\(request.uri.path)",
                    "error": "\(String(reflecting: error))",
                ])
            throw APIError.databaseUnavailable(retryAfterSeconds: retryAfterSeconds)
        } catch {
            context.logger.error(
                "request failed",
                metadata: [
                    "method": "\(request.method)", "path": "\(request.uri.path)",
                    "error": "\(String(reflecting: error))",
                ])
            throw APIError(.internalServerError, "the server failed to answer this request (its log says why)")
        }
    }
}

/// Whether `error` says the database is gone rather than what the request asked: it does not
/// answer, a connection closed or could not be made, the pool was closed, or PostgreSQL is
/// shutting down, starting up or refusing connections (SQLSTATE classes 08 and 57P).
func isDatabaseOutage(_ error: any Error) -> Bool {
    switch error {
    case is DatabaseUnavailable, is DatabaseConnectionLost, is DatabasePoolReplaced:
        return true
    case let error as ConnectionPoolError:
        // postgres-nio (1.33) throws its pool's errors unmapped: a request that waited for a
        // connection of a pool closed under it (replaced at an outage), or for one that could not
        // be made.
        return error == .poolShutdown || error == .connectionCreationCircuitBreakerTripped
    case let error as PostgresTransactionError:
        return [error.beginError, error.closureError, error.rollbackError, error.commitError]
            .contains { $0.map(isDatabaseOutage) ?? false }
    case let error as PSQLError:
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown:
            return true
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || state.hasPrefix("57P")
        default:
            return false
        }
    default:
        return false
    }
}
