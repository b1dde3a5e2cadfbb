import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The fleet client's HTTP transport on Apple's systems: Foundation's `URLSession` (ephemeral: no
/// cache, no cookies). Linux has ``CurlTransport`` instead (it says why).
///
/// It owns its session and invalidates it at ``shutDown()`` (requests under way finish first).
final class URLSessionTransport: Sendable {
    /// A request that got no HTTP answer: the session's description of what went wrong.
    struct Failure: Error {
        var message: String
    }

    private let session: URLSession

    /// A transport whose requests time out after `timeout` seconds without an answer.
    init(timeout: TimeInterval) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    /// Lets the requests under way finish, then releases the session.
    func shutDown() {
        session.finishTasksAndInvalidate()
    }

    /// Sends `method` to `url` with `headers` (`Name: value` lines) and `body`, and returns the
    /// answer's status and body.
    ///
    /// - Throws: `CancellationError` when the task is cancelled, ``Failure`` when no HTTP answer
    ///   came within `timeout` seconds.
    func send(
        _ method: String, to url: URL, headers: [String], body: Data?, timeout: TimeInterval
    ) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        for header in headers {
            guard let colon = header.firstIndex(of: ":") else { continue }
            let value = header[header.index(after: colon)...].drop { $0 == " " }
            request.setValue(String(value), forHTTPHeaderField: String(header[..<colon]))
        }
        request.httpBody = body
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw Failure(message: error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw Failure(message: "not an HTTP response") }
        return (http.statusCode, data)
    }
}
