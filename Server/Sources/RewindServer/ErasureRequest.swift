import Foundation
import Logging
import PostgresNIO
import Rewind
@_spi(Internals) import RewindStore
import RewindWire

/// An erasure the app team asks for (`POST /v1/erasures`, erase key): one session, or every
/// session whose context — the payload of its first record (`rewind.start`), a JSON object — has
/// a value at a path ("everything of user 42"), across every device store of the app.
public enum ErasureRequest: Sendable, Equatable {
    /// The session with this id.
    case session(String)
    /// Every session whose context holds `value` at `path` (object keys from the top), compared
    /// as JSON values (numbers by value: `42` matches `42.0`).
    case context(path: [String], value: JSONValue)

    /// The request of a body `{"session": "id"}` or `{"context": {"path": ["user", "id"], "equals": 42}}`
    /// (`path` may be one key as a string).
    ///
    /// - Throws: ``APIError`` 400 saying what the body should be.
    static func parse(_ body: some Collection<UInt8>) throws(APIError) -> ErasureRequest {
        let shape = #"the body must be {"session": "ID"} or {"context": {"path": ["key", …], "equals": VALUE}}"#
        guard let json = try? JSONValue(jsonBytes: body), case .object(let fields) = json, fields.count == 1 else {
            throw APIError(.badRequest, shape)
        }
        if let session = fields["session"] {
            guard let text = session.stringValue, (try? SessionID(text)) != nil else {
                throw APIError(
                    .badRequest, "session must be a valid session id", details: ["parameter": .text("session")])
            }
            return .session(text)
        }
        guard case .object(let context)? = fields["context"], let value = context["equals"], context.count == 2 else {
            throw APIError(.badRequest, shape)
        }
        let path: [String]
        switch context["path"] {
        case .string(let key)?: path = [key]
        case .array(let keys)?:
            path = keys.compactMap(\.stringValue).count == keys.count ? keys.compactMap(\.stringValue) : []
        default: path = []
        }
        guard !path.isEmpty else {
            throw APIError(
                .badRequest, "context.path must be a key or a non-empty array of keys",
                details: ["parameter": .text("path")])
        }
        return .context(path: path, value: value)
    }

    /// Whether a session whose context is `context` matches.
    func matches(context: JSONValue) -> Bool {
        guard case .context(let path, let value) = self else { return false }
        var current = context
        for key in path {
            guard case .object(let object) = current, let inner = object[key] else { return false }
            current = inner
        }
        return current == value
    }
}

/// The answer of `POST /v1/erasures`: what was removed.
struct ErasureReport: Encodable, Sendable {
    /// When the server erased it (the tombstones' time).
    var erasedAt: String
    /// The sessions erased (tombstoned), each with the stores it was removed from.
    var sessions: [ErasedSession]
    /// How many device stores lost records.
    var stores: Int
    /// How many records were removed in all.
    var records: Int64
}

extension ErasureRequest {
    /// Erases what the request names from every store of app `appID` in ONE transaction, with
    /// tombstones (a session the server holds nothing of yet is tombstoned too, so its upload
    /// is refused later), and reports it.
    ///
    /// A context request reads the first record of every session of the app (inside the
    /// transaction, so no session is uploaded between the search and the erasure; uploads of
    /// the app wait meanwhile); a session whose history was trimmed before its first record has
    /// no context and is not matched.
    static func apply(
        _ request: ErasureRequest, appID: Int64, now: Date, client: PostgresClient, logger: Logger
    ) async throws -> ErasureReport {
        try await client.transaction(logger: logger) { connection -> ErasureReport in
            try await Erasure.lockApp(appID, exclusive: true, connection: connection, logger: logger)
            let ids: [String]
            switch request {
            case .session(let id): ids = [id]
            case .context:
                ids = try await matchingSessions(request, appID: appID, connection: connection, logger: logger)
            }
            let sessions = try await Erasure.eraseSessions(
                ids, appID: appID, erasedAt: now, tombstone: .request, connection: connection, logger: logger)
            let stores = Set(sessions.flatMap { $0.stores.map(\.storeID) })
            return ErasureReport(
                erasedAt: Erasure.timeText(now), sessions: sessions, stores: stores.count,
                records: sessions.reduce(0) { $0 + $1.stores.reduce(0) { $0 + $1.records } })
        }
    }

    /// The ids of the app's sessions whose context matches, by id.
    private static func matchingSessions(
        _ request: ErasureRequest, appID: Int64, connection: PostgresConnection, logger: Logger
    ) async throws -> [String] {
        var ids: Set<String> = []
        for try await (storeID, session, sequence, bytes) in try await connection.query(
            """
            SELECT store_id, session_id, sequence, record FROM records WHERE app_id = \(appID) AND version = 1
            """, logger: logger
        ).decode((UUID, String, Int64, ByteBuffer).self) where !ids.contains(session) {
            let record = try PostgresTransitionLog.Reader.decode(
                .init(sequence: sequence, session: session, version: 1, bytes: bytes), storeID: storeID)
            // A context another payload coder wrote is not JSON: it cannot match.
            guard let context = try? JSONValue(jsonBytes: record.payload) else { continue }
            if request.matches(context: context) { ids.insert(session) }
        }
        return ids.sorted()
    }
}
