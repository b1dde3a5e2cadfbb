import Hummingbird
import Logging

/// Logs, at error level, every error a handler throws that is not an HTTP answer of its own
/// (those become 500s), so a failed query is never silent.
struct ErrorLoggingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            context.logger.error("request failed", metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "error": "\(String(reflecting: error))",
            ])
            throw error
        }
    }
}
