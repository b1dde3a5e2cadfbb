import Hummingbird

/// Fails fast while the database does not answer: a request is refused at once (with
/// ``DatabaseUnavailable``, a 503 with `Retry-After` once through ``JSONErrorMiddleware``) while
/// ``DatabaseAvailability`` says unavailable. Requests in progress when the database goes away end
/// with the errors of their closed connections, or of the pool that is dropped then
/// (``DatabasePool``), which are 503s too.
struct DatabaseOutageMiddleware<Context: RequestContext>: RouterMiddleware {
    let availability: DatabaseAvailability

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard availability.status == .available else { throw DatabaseUnavailable() }
        return try await next(request, context)
    }
}
