import ArgumentParser
import Foundation
import Rewind
import RewindSync
import RewindWire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `--server URL --key KEY`: read from a fleet server (`rewind-server`) instead of a local store.
/// `--store` then names the device store by its id (`meta.store-id`, a UUID) rather than a
/// directory.
struct ServerOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
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
        guard let url = URL(string: server), FleetHTTPClient.isServerURL(url) else {
            throw CLIError.usage("--server must be an http:// or https:// URL, not '\(server)'")
        }
        guard let key, !key.isEmpty else {
            throw CLIError.usage(
                "--server needs --key KEY: a read key of the app (rewind-server create-app prints one)")
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

/// Reads from a fleet server through the one ``FleetHTTPClient`` (RewindSync): the replay
/// endpoints of one device store, answered in the same JSON shapes the local commands print.
struct ServerConnection {
    /// The client, with the server's base URL and the read key.
    var client: FleetHTTPClient
    /// The device store `--store` named, if any.
    var store: UUID?

    /// A connection to the server at `base` with read key `key`.
    init(base: URL, key: String, store: UUID?) {
        client = FleetHTTPClient(base: base, key: key)
        self.store = store
    }

    /// The server's base URL.
    var base: URL { client.base }

    /// The answer to `GET` on the path made of `segments` with `query`.
    ///
    /// - Throws: ``CLIError/server(_:status:message:)`` when the server cannot be reached.
    func get(_ segments: [String], query: [URLQueryItem] = []) async throws -> FleetHTTPClient.Answer {
        try await send("GET", to: try url(segments, query: query))
    }

    /// The answer to `method` on `url`.
    ///
    /// - Throws: ``CLIError/server(_:status:message:)`` when the server cannot be reached.
    private func send(
        _ method: String, to url: URL, body: Data? = nil, timeout: TimeInterval? = nil
    ) async throws -> FleetHTTPClient.Answer {
        do {
            return try await client.send(method, to: url, body: body, timeout: timeout)
        } catch let error as FleetHTTPClient.TransportError {
            throw CLIError.server(url.absoluteString, status: 0, message: error.message)
        }
    }

    /// The 200 answer of `GET` `segments` decoded as `T`.
    ///
    /// - Throws: ``CLIError/server(_:status:message:)`` for any other answer or a body that is
    ///   not a `T`.
    func get<T: Decodable>(_ type: T.Type, _ segments: [String], query: [URLQueryItem] = []) async throws -> T {
        try decode(T.self, try await get(segments, query: query))
    }

    /// The 200 answer of `POST` `segments` with the JSON `body`, decoded as `T`; the server may
    /// take `timeout` seconds to answer.
    ///
    /// - Throws: ``CLIError/server(_:status:message:)`` for any other answer or a body that is
    ///   not a `T`.
    func post<T: Decodable>(
        _ type: T.Type, _ segments: [String], query: [URLQueryItem] = [], body: Data, timeout: TimeInterval
    ) async throws -> T {
        try decode(T.self, try await send("POST", to: try url(segments, query: query), body: body, timeout: timeout))
    }

    private func decode<T: Decodable>(_ type: T.Type, _ answer: FleetHTTPClient.Answer) throws -> T {
        guard answer.status == 200 else { throw failure(answer) }
        do {
            return try JSONDecoder().decode(T.self, from: answer.body)
        } catch {
            throw CLIError.server(
                answer.url.absoluteString, status: answer.status,
                message: "an answer the command cannot read (\(error))")
        }
    }

    /// The error of an answer other than 200: the server's message (the `error` of its JSON
    /// body, or the start of the body).
    private func failure(_ answer: FleetHTTPClient.Answer) -> CLIError {
        CLIError.server(answer.url.absoluteString, status: answer.status, message: answer.message)
    }

    /// Every session of device store `store`, page after page.
    func storeSessions(_ store: UUID) async throws -> [SessionListing] {
        var sessions: [SessionListing] = []
        var after: String?
        repeat {
            let page = try await get(
                StoreSessionPage.self, ["v1", "stores", store.uuidString.lowercased(), "sessions"],
                query: after.map { [URLQueryItem(name: "after", value: $0)] } ?? [])
            sessions += page.sessions
            after = page.next
        } while after != nil
        return sessions
    }

    /// The app's sessions matching `filter` (`GET /v1/sessions`), page after page, until `limit`
    /// are read; whether more remain.
    func fleetSessions(
        _ filter: [URLQueryItem], limit: Int = .max
    ) async throws -> (sessions: [FleetSessionSummary], more: Bool) {
        var sessions: [FleetSessionSummary] = []
        var cursor: String?
        repeat {
            var query = filter + [URLQueryItem(name: "limit", value: String(min(limit - sessions.count, 1000)))]
            if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
            let page = try await get(FleetSessionList.self, ["v1", "sessions"], query: query)
            sessions += page.sessions.prefix(limit - sessions.count)
            cursor = page.nextCursor
        } while cursor != nil && sessions.count < limit
        return (sessions, cursor != nil)
    }

    /// The app's sessions matching `filter`, every page.
    func fleetSessions(_ filter: [URLQueryItem]) async throws -> [FleetSessionSummary] {
        try await fleetSessions(filter, limit: .max).sessions
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
            // The server looks the id up in every store (`session=`), page after page.
            let copies = try await fleetSessions([URLQueryItem(name: "session", value: session)])
            let stores = Set(copies.filter { $0.sessionID == session }.map(\.storeID))
            guard let only = stores.first else { throw CLIError.unknownSession(session) }
            guard stores.count == 1 else {
                throw CLIError.usage(
                    "session '\(DisplayText.excerpt(session))' is in several device stores: pick one with --store ("
                        + stores.map { $0.uuidString.lowercased() }.sorted().joined(separator: ", ") + ")")
            }
            store = only
        }
        let answer = try await get(sessionPath(session, store: store))
        if answer.status == 404 { throw CLIError.unknownSession(session) }
        return (store, try decode(SessionListing.self, answer))
    }

    /// The session archive of `session` (what `rewind export` writes on the device).
    ///
    /// - Throws: as ``session(_:)``, and ``CLIError/server(_:status:message:)``.
    func archive(of session: String) async throws -> Data {
        let (store, _) = try await self.session(session)
        let answer = try await get(sessionPath(session, store: store) + ["archive"])
        guard answer.status == 200 else { throw failure(answer) }
        return answer.body
    }

    /// The viewer page of `session` as the server renders it from its copy of the log (the same
    /// `SessionPage` code), with the values at `redact` paths replaced.
    func page(of session: String, redacting redact: [String]) async throws -> Data {
        let (store, _) = try await self.session(session)
        let answer = try await get(
            sessionPath(session, store: store) + ["page"], query: redact.map { URLQueryItem(name: "redact", value: $0) }
        )
        guard answer.status == 200 else { throw failure(answer) }
        return answer.body
    }

    private func url(_ segments: [String], query: [URLQueryItem]) throws -> URL {
        guard let url = client.url(segments, query: query) else {
            throw CLIError.usage(
                "--server \(base.absoluteString) does not make a URL with \(segments.joined(separator: "/"))")
        }
        return url
    }
}
