import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Rewind

/// `--server URL --key KEY`: read from a fleet server (`rewind-server`) instead of a local store.
/// `--store` then names the device store by its id (`meta.store-id`, a UUID) rather than a
/// directory.
struct ServerOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Read from the fleet server at this URL (http://host:port) instead of a local store; --store then names a device store by its id.",
        valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("The app's read key for --server (rewind_read_...).", valueName: "key"))
    var key: String?

    /// The connection `--server` asks for, or `nil` when the command reads a local store.
    ///
    /// - Throws: ``CLIError/usage(_:)`` for a URL that is not http(s), a missing
    ///   key, a key without a server, or a `--store` that is not a store id.
    func connection(_ storeOptions: StoreOptions) throws -> ServerConnection? {
        guard let server else {
            if key != nil { throw CLIError.usage("--key goes with --server URL") }
            return nil
        }
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host != nil
        else {
            throw CLIError.usage("--server must be an http:// or https:// URL, not '\(server)'")
        }
        guard let key, !key.isEmpty else {
            throw CLIError.usage("--server needs --key KEY: a read key of the app (rewind-server create-app prints one)")
        }
        var store: UUID?
        if storeOptions.store != StoreOptions.defaultDirectory {
            guard let id = UUID(uuidString: storeOptions.store) else {
                throw CLIError.usage(
                    "with --server, --store names a device store by its id (a UUID), not '\(storeOptions.store)'")
            }
            store = id
        }
        return ServerConnection(base: url, key: key, store: store)
    }
}

/// Reads from a fleet server over HTTP (Foundation's `URLSession`): the replay endpoints of
/// one device store, answered in the same JSON shapes the local commands print.
struct ServerConnection {
    /// The server's base URL.
    var base: URL
    /// The read key, sent as `Authorization: Bearer KEY`.
    var key: String
    /// The device store `--store` named, if any.
    var store: UUID?

    /// A server error's body.
    private struct ErrorBody: Decodable { var error: String }

    /// The status and body of the answer to `GET` on the path made of `segments` (each
    /// percent-encoded) with `query`.
    ///
    /// - Throws: ``CLIError/server(_:status:message:)`` when the server cannot be reached.
    func get(_ segments: [String], query: [URLQueryItem] = []) async throws -> (status: Int, body: Data) {
        try await send(URLRequest(url: try url(segments, query: query)))
    }

    /// The status and body of the answer to `request`, sent with the key.
    ///
    /// - Throws: ``CLIError/server(_:status:message:)`` when the server cannot be reached.
    private func send(_ request: URLRequest) async throws -> (status: Int, body: Data) {
        var request = request
        let url = request.url ?? base
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw CLIError.server(url.absoluteString, status: 0, message: error.localizedDescription)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, data)
    }

    /// The 200 answer of `GET` `segments` decoded as `T`.
    ///
    /// - Throws: ``CLIError/server(_:status:message:)`` for any other answer or a body that is
    ///   not a `T`.
    func get<T: Decodable>(_ type: T.Type, _ segments: [String], query: [URLQueryItem] = []) async throws -> T {
        let (status, body) = try await get(segments, query: query)
        return try decode(T.self, status: status, body: body, url: try url(segments, query: query).absoluteString)
    }

    /// The 200 answer of `POST` `segments` with the JSON `body`, decoded as `T`; the server may
    /// take `timeout` seconds to answer.
    ///
    /// - Throws: ``CLIError/server(_:status:message:)`` for any other answer or a body that is
    ///   not a `T`.
    func post<T: Decodable>(
        _ type: T.Type, _ segments: [String], query: [URLQueryItem] = [], body: Data, timeout: TimeInterval
    ) async throws -> T {
        let url = try url(segments, query: query)
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (status, answer) = try await send(request)
        return try decode(T.self, status: status, body: answer, url: url.absoluteString)
    }

    private func decode<T: Decodable>(_ type: T.Type, status: Int, body: Data, url: String) throws -> T {
        guard status == 200 else {
            throw failure(status: status, body: body, url: url, otherwise: String(decoding: body.prefix(200), as: UTF8.self))
        }
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch {
            throw CLIError.server(url, status: status, message: "an answer the command cannot read (\(error))")
        }
    }

    /// The error of an answer other than 200: the server's message (the `error` of its JSON
    /// body), or `otherwise` when the body has none.
    private func failure(status: Int, body: Data, url: String, otherwise: @autoclosure () -> String) -> CLIError {
        let message = (try? JSONDecoder().decode(ErrorBody.self, from: body).error) ?? otherwise()
        return CLIError.server(url, status: status, message: message)
    }

    /// Every session of device store `store`, page after page.
    func storeSessions(_ store: UUID) async throws -> [SessionListing] {
        var sessions: [SessionListing] = []
        var after: String?
        repeat {
            let page = try await get(
                StoreSessions.self, ["v1", "stores", store.uuidString.lowercased(), "sessions"],
                query: after.map { [URLQueryItem(name: "after", value: $0)] } ?? [])
            sessions += page.sessions
            after = page.next
        } while after != nil
        return sessions
    }

    /// The path of session `session` of the store: `v1/stores/{store}/sessions/{session}`.
    func sessionPath(_ session: String, store: UUID) -> [String] {
        ["v1", "stores", store.uuidString.lowercased(), "sessions", session]
    }

    /// The listing (machine, head version, states) of `session`: in `--store`, else in the one
    /// store of the app that has a session of that id.
    ///
    /// - Throws: ``CLIError/unknownSession(_:)`` when no store (or not the named one) has it,
    ///   ``CLIError/usage(_:)`` when several stores do and `--store` was not given.
    func session(_ session: String) async throws -> (store: UUID, listing: SessionListing) {
        let store: UUID
        if let named = self.store {
            store = named
        } else {
            let all = try await get(FleetSessions.self, ["v1", "sessions"], query: [URLQueryItem(name: "limit", value: "1000")])
            let stores = Set(all.sessions.filter { $0.sessionID == session }.map(\.storeID))
            guard let only = stores.first else { throw CLIError.unknownSession(session) }
            guard stores.count == 1 else {
                throw CLIError.usage(
                    "session '\(DisplayText.excerpt(session))' is in several device stores: pick one with --store ("
                    + stores.map { $0.uuidString.lowercased() }.sorted().joined(separator: ", ") + ")")
            }
            store = only
        }
        let path = sessionPath(session, store: store)
        let (status, body) = try await get(path)
        if status == 404 { throw CLIError.unknownSession(session) }
        return (store, try decode(SessionListing.self, status: status, body: body, url: try url(path, query: []).absoluteString))
    }

    /// The session archive of `session` (what `rewind export` writes on the device).
    ///
    /// - Throws: as ``session(_:)``, and ``CLIError/server(_:status:message:)``.
    func archive(of session: String) async throws -> Data {
        let (store, _) = try await self.session(session)
        let path = sessionPath(session, store: store) + ["archive"]
        let (status, body) = try await get(path)
        guard status == 200 else {
            throw failure(status: status, body: body, url: try url(path, query: []).absoluteString, otherwise: "no archive")
        }
        return body
    }

    /// The viewer page of `session` as the server renders it from its copy of the log (the same
    /// `SessionPage` code), with the values at `redact` paths replaced.
    func page(of session: String, redacting redact: [String]) async throws -> Data {
        let (store, _) = try await self.session(session)
        let path = sessionPath(session, store: store) + ["page"]
        let query = redact.map { URLQueryItem(name: "redact", value: $0) }
        let (status, body) = try await get(path, query: query)
        guard status == 200 else {
            throw failure(status: status, body: body, url: try url(path, query: query).absoluteString, otherwise: "no page")
        }
        return body
    }

    private func url(_ segments: [String], query: [URLQueryItem]) throws -> URL {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let path = segments.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }.joined(separator: "/")
        var text = base.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        guard var components = URLComponents(string: text + path) else {
            throw CLIError.usage("--server \(base.absoluteString) does not make a URL with \(path)")
        }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else {
            throw CLIError.usage("--server \(base.absoluteString) does not make a URL with \(path)")
        }
        return url
    }
}

/// The body of the server's `GET /v1/sessions`: the app's sessions across its device stores.
struct FleetSessions: Decodable {
    /// One session of one device store.
    struct Summary: Decodable {
        var storeID: UUID
        var sessionID: String
        var machine: String
        var headVersion: UInt64
        var lastRecordedAtMicroseconds: Int64
    }

    var sessions: [Summary]
}

/// A page of the server's `GET /v1/stores/{store}/sessions`.
struct StoreSessions: Decodable {
    /// The page's sessions, by id.
    var sessions: [SessionListing]
    /// How many sessions the store has.
    var total: Int
    /// The `after` of the next page, or `nil` on the last.
    var next: String?
}
