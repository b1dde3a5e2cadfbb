import Foundation
import Rewind
import RewindWire

/// The one HTTP client to a fleet server (`rewind-server`): the uploader's ingestion requests and
/// the CLI's `--server` reads both go through it. Its transport is Foundation's `URLSession` on
/// Apple's systems and libcurl on Linux (``CurlTransport`` says why).
///
/// It owns what every request to the server shares: the base URL's rules (http or https, with a
/// host), paths made of percent-encoded segments, the key sent as `Authorization: Bearer KEY`,
/// JSON asked for, and the error bodies' `{"error": …}` read back as a message. What an answer
/// means (an upload's conflict, a command's unknown session) stays with the caller.
///
/// It owns its transport and releases it when the last reference goes (requests under way hold
/// the client, so they finish first): a process that makes clients one after another (an app's
/// uploaders, a test suite's commands) keeps no session, connection or thread of one it no longer
/// holds.
package final class FleetHTTPClient: Sendable {
    /// An answer of the server: its status and body, and the URL asked.
    package struct Answer: Sendable {
        /// The HTTP status.
        package var status: Int
        /// The body.
        package var body: Data
        /// The URL of the request.
        package var url: URL

        /// The server's message for an answer that is not a success: the `error` of its JSON body,
        /// or the start of the body when it has none.
        package var message: String { FleetHTTPClient.message(of: body) }
    }

    /// A request that got no answer: the server could not be reached, the connection broke, the
    /// request timed out, or what came back was not HTTP.
    package struct TransportError: Error, CustomStringConvertible {
        /// The request's method.
        package var method: String
        /// The URL asked.
        package var url: URL
        /// What went wrong.
        package var message: String

        package var description: String { "\(method) \(url.absoluteString): \(message)" }
    }

    /// The server's base URL (`http://host:port`, possibly with a path prefix).
    package let base: URL
    #if canImport(CCurl)
        typealias Transport = CurlTransport
    #else
        typealias Transport = URLSessionTransport
    #endif
    private let transport: Transport
    private let authorization: String
    private let timeout: TimeInterval

    /// A client of the server at `base` sending `key`; a request taking longer than `timeout`
    /// fails with a ``TransportError``.
    package init(base: URL, key: String, timeout: Duration = .seconds(60)) {
        #if canImport(CCurl)
            transport = CurlTransport()
        #else
            transport = URLSessionTransport(timeout: timeout.seconds)
        #endif
        self.base = base
        authorization = "Bearer \(key)"
        self.timeout = timeout.seconds
    }

    deinit {
        transport.shutDown()
    }

    /// Whether `url` can be a fleet server's base URL: http or https, with a host.
    package static func isServerURL(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return ["http", "https"].contains(scheme) && !(url.host ?? "").isEmpty
    }

    /// The URL of the path made of `segments` (each percent-encoded, so an id with `/` or `?` stays
    /// one segment) under the base, with `query`; `nil` when they do not make a URL.
    package func url(_ segments: [String], query: [URLQueryItem] = []) -> URL? {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let path = segments.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }.joined(
            separator: "/")
        var text = base.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        guard var components = URLComponents(string: text + path) else { return nil }
        if !query.isEmpty { components.queryItems = query }
        return components.url
    }

    /// Sends `method` to `url` with the key, asking for JSON; `body` goes with `contentType`.
    ///
    /// - Parameter timeout: how long this request may take (the client's timeout when `nil`).
    /// - Throws: `CancellationError` when the task is cancelled, ``TransportError`` when no HTTP
    ///   answer came.
    package func send(
        _ method: String, to url: URL, body: Data? = nil, contentType: String? = nil, timeout: TimeInterval? = nil
    ) async throws -> Answer {
        var headers = ["Authorization: \(authorization)", "Accept: application/json"]
        if body != nil { headers.append("Content-Type: \(contentType ?? "application/json")") }
        do {
            let (status, data) = try await transport.send(
                method, to: url, headers: headers, body: body, timeout: timeout ?? self.timeout)
            return Answer(status: status, body: data, url: url)
        } catch let failure as Transport.Failure {
            throw TransportError(method: method, url: url, message: failure.message)
        }
    }

    /// The server's message in an error body: its `error`, or the start of the body.
    package static func message(of body: Data) -> String {
        (try? JSONDecoder().decode(ErrorAnswer.self, from: body))?.error ?? excerpt(body)
    }

    /// The start of a body, for messages.
    package static func excerpt(_ body: Data) -> String {
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return text.isEmpty ? "(empty body)" : text
    }
}
