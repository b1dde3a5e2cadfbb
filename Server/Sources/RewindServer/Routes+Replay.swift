import Foundation
import Hummingbird
import Logging
import PostgresNIO
import Rewind
import RewindViewer
import RewindWire

/// The replay endpoints of one device store (read key): its sessions, and a session's history,
/// state at a version, diff, verification and archive. Each answers with the same code a device
/// runs over its own store — ``LogReplay`` and the Rewind module's report types — in the JSON
/// shapes `rewind … --json` prints. Each request loads the session from the store's
/// ``PostgresTransitionLog`` as it is when the request begins (awaiting PostgreSQL, never blocking
/// a thread: ``SessionLog/load(_:from:)``), then replays it in memory.
extension Routes {
    func addReplayRoutes(to router: Router<BasicRequestContext>) {
        router.get("v1/stores/:storeID/sessions") { request, context in
            try await storeSessions(request, context: context)
        }
        router.get("v1/stores/:storeID/sessions/:sessionID") { request, context in
            try await replay(request, context: context) { log in
                guard let listing = try SessionListing.read(log.session, from: log) else {
                    throw EngineError.unknownSession(log.session)
                }
                return listing
            }
        }
        router.get("v1/stores/:storeID/sessions/:sessionID/history") { request, context in
            let filter = try historyFilter(request)
            // Pages of at most 1,000 rows (10,000 when asked): the CLI asks for the next from the
            // version after the last row, so no answer grows with a session's length.
            let limit = try integer(request, "limit", in: 1...10_000) ?? 1_000
            return try await replay(request, context: context) { log in
                try HistoryRow.rows(of: log.session, in: log, filter: filter, limit: limit, coder: JSONPayloadCoder())
            }
        }
        router.get("v1/stores/:storeID/sessions/:sessionID/state") { request, context in
            let version = try integer(request, "version", in: 0...Int.max).map(UInt64.init)
            return try await replay(request, context: context) { log in
                let point = try LogReplay(log: log).point(of: log.session, at: version ?? log.info.headVersion)
                return ReplayPointReport(point, machine: log.info.machine, versions: log.info.headVersion)
            }
        }
        router.get("v1/stores/:storeID/sessions/:sessionID/diff") { request, context in
            guard let from = try integer(request, "from", in: 0...Int.max),
                let to = try integer(request, "to", in: 0...Int.max)
            else {
                throw APIError(.badRequest, "diff needs from and to: the two versions to compare")
            }
            return try await replay(request, context: context) { log in
                ReplayDiffReport(try LogReplay(log: log).diff(log.session, from: UInt64(from), to: UInt64(to)))
            }
        }
        router.post("v1/stores/:storeID/sessions/:sessionID/verify") { request, context in
            let machine = try await definitionMachine(of: request)
            return try await replay(request, context: context) { log in
                let report = try LogReplay(log: log).verify(log.session, against: machine)
                return VerificationSummary([VerificationSummary.Row(report, machine: log.info.machine)])
            }
        }
        router.get("v1/stores/:storeID/sessions/:sessionID/archive") { request, context in
            try await archive(request, context: context)
        }
        router.get("v1/stores/:storeID/sessions/:sessionID/page") { request, context in
            let redaction: Redaction
            do {
                redaction = try Redaction(paths: request.uri.queryParameters.getAll("redact").map { String($0) })
            } catch {
                throw APIError(.badRequest, "redact: \(error)")
            }
            // A page: a browser's Basic password is a key too (the fleet page links here).
            return try await page(request) { caller in
                let page = try await loaded(request, context: context, caller: caller) { log in
                    try SessionPage(log: log, session: log.session, redacting: redaction).html()
                }
                return Response(
                    status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: page)))
            }
        }
    }

    // MARK: Endpoints

    /// `GET /v1/stores/{store}/sessions?limit=&after=`: the store's sessions by id, as
    /// `rewind sessions --json` lists them, a page at a time: up to `limit` (default and at most
    /// ``storeSessionsPageLimit``) after the session id `after`, with the store's session count
    /// and the `after` of the next page (absent on the last). One query per page.
    private func storeSessions(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let caller = try await authenticate(request, needs: .read)
        let storeID = try storeID(context)
        let limit = try integer(request, "limit", in: 1...Self.storeSessionsPageLimit) ?? Self.storeSessionsPageLimit
        let after = request.uri.queryParameters["after"].map(String.init) ?? ""
        let page = try await answering {
            try await StoreSessionPage.read(
                client: client, appID: caller.appID, storeID: storeID, after: after, limit: limit, logger: logger)
        }
        return try JSONResponse.make(body: page)
    }

    /// The most sessions a page of `GET /v1/stores/{store}/sessions` lists (and its default).
    static let storeSessionsPageLimit = 1_000

    /// Authenticates a read key, loads the session the path names from its store's log, and runs
    /// `body` on it in memory; answers what it returns as JSON.
    private func replay<Answer: Encodable & Sendable>(
        _ request: Request, context: BasicRequestContext, _ body: @escaping @Sendable (SessionLog) throws -> Answer
    ) async throws -> Response {
        try JSONResponse.make(body: try await loaded(request, context: context, body))
    }

    /// `GET /v1/stores/{store}/sessions/{session}/archive`: the session's archive, the bytes a
    /// device exports, streamed as it is read (``SessionArchiveStream``: a page of records at a
    /// time, never the whole session in memory). What the header needs is read first, so an
    /// unknown, erased or damaged session is answered with its status; an error while the records
    /// stream (the session erased meanwhile) cuts the archive before its trailer, which no import
    /// accepts. The key's turn (``KeyConcurrency``) is held until the last byte is written.
    private func archive(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let stream = try await session(request, context: context) { session, reader in
            try await SessionArchiveStream(session, from: reader)
        }
        let turn = KeyConcurrency.held?.handOver()
        let logger = logger
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: ResponseBody { writer in
                defer { turn?.end() }
                do {
                    try await stream.write { part in try await writer.write(ByteBuffer(bytes: part)) }
                } catch {
                    logger.error(
                        "the archive of '\(stream.info.session)' was cut: \(error)",
                        metadata: ["store": "\(stream.reader.log.storeID)"])
                    throw error
                }
                try await writer.finish(nil)
            })
    }

    /// Authenticates a read key (unless the caller is known already), loads the session the path
    /// names from its store's log as it is now, and returns what `body` makes of it (replay's
    /// errors turned into answers).
    private func loaded<T>(
        _ request: Request, context: BasicRequestContext, caller known: Caller? = nil,
        _ body: (SessionLog) throws -> T
    ) async throws -> T {
        let log = try await session(request, context: context, caller: known) { session, reader in
            try await SessionLog.load(session, from: reader)
        }
        return try await answering { try body(log) }
    }

    /// Authenticates a read key (unless the caller is known already) and reads the session the
    /// path names with `read`, from a reader of its store's log as it is now: a session `read`
    /// finds no record of (`nil`) is a 410 when erased, else a 404; replay's errors are answers.
    private func session<T>(
        _ request: Request, context: BasicRequestContext, caller known: Caller? = nil,
        _ read: (SessionID, PostgresTransitionLog.Reader) async throws -> T?
    ) async throws -> T {
        let caller: Caller
        if let known { caller = known } else { caller = try await authenticate(request, needs: .read) }
        let storeID = try storeID(context)
        // Path parameters arrive percent-encoded.
        guard let text = context.parameters.get("sessionID")?.removingPercentEncoding,
            let session = try? SessionID(text)
        else {
            throw APIError(.badRequest, "the session id is not a valid session id")
        }
        let log = PostgresTransitionLog(client: client, appID: caller.appID, storeID: storeID, logger: logger)
        return try await answering {
            guard let found = try await read(session, try await log.reader()) else {
                // Erased (a tombstone), or its history's beginning erased on the device: 410.
                if let gone = try await Erasure.gone(
                    session.rawValue, appID: caller.appID, storeID: storeID, client: client, logger: logger)
                {
                    throw gone
                }
                throw EngineError.unknownSession(session)
            }
            return found
        }
    }

    /// Runs `work`, turning replay's errors into answers: an unknown session is a 404, a version
    /// before a trimmed session's base a 410 naming where its history begins, a version past the
    /// head a 400 naming the head, a session replay cannot re-run a 422, a damaged row
    /// a 500 naming it.
    func answering<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as APIError {
            throw error
        } catch EngineError.unknownSession(let session) {
            throw APIError(
                .notFound, "no session '\(session)' in this store", details: ["session": .text(session.rawValue)])
        } catch ReplayError.versionOutOfRange(let session, let requested, let head) {
            throw APIError(
                .badRequest, "version \(requested) is past the head of session '\(session)', version \(head)",
                details: ["head": .integer(Int64(clamping: head)), "version": .integer(Int64(clamping: requested))])
        } catch let error as ReplayError {
            if case .historyTrimmed(_, let requested, let first) = error {
                // The device's words: "… its history begins at version N (older history was trimmed)".
                throw APIError(
                    .gone, error.description,
                    details: [
                        "historyBeginsAt": .integer(Int64(clamping: first)),
                        "version": .integer(Int64(clamping: requested)),
                    ])
            }
            throw APIError(.unprocessableContent, "the session cannot be replayed: \(error)")
        } catch let error as PostgresLogError {
            logger.error("damaged log", metadata: ["error": "\(error)"])
            throw APIError(.internalServerError, error.description)
        } catch let error as EngineError {
            throw APIError(.unprocessableContent, "the session cannot be replayed: \(error)")
        }
    }

    /// The machine of the definition the request's body holds (its JSON interchange document).
    ///
    /// - Throws: ``APIError`` 400 for a body that is no definition that compiles, 413 for one
    ///   larger than the body limit.
    func definitionMachine(of request: Request) async throws -> Machine {
        let body = try await collectBody(of: request)
        do {
            return try Machine(try MachineDefinition(jsonDocument: Data(body.readableBytesView)))
        } catch {
            throw APIError(
                .badRequest, "the body is not a machine definition (JSON interchange document) that compiles: \(error)")
        }
    }

    /// The history filter of `events`, `states` (each repeatable) and `from`/`to` (versions).
    private func historyFilter(_ request: Request) throws -> HistoryFilter {
        let parameters = request.uri.queryParameters
        let events = parameters.getAll("events")
        let states = parameters.getAll("states")
        let from = try integer(request, "from", in: 1...Int.max)
        let to = try integer(request, "to", in: 1...Int.max)
        if let from, let to, from > to {
            throw APIError(.badRequest, "from (\(from)) is past to (\(to))", details: ["parameter": .text("from")])
        }
        var versions: ClosedRange<UInt64>?
        if from != nil || to != nil { versions = UInt64(from ?? 1)...UInt64(to ?? Int.max) }
        return HistoryFilter(
            events: events.isEmpty ? nil : Set(events), states: states.isEmpty ? nil : Set(states), versions: versions)
    }

    /// The whole-number query parameter `name` in `range`, or `nil` when absent.
    func integer(_ request: Request, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = request.uri.queryParameters[name[...]] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw APIError(
                .badRequest,
                "\(name) must be a whole number from \(range.lowerBound)"
                    + (range.upperBound == Int.max ? " on" : " to \(range.upperBound)"),
                details: ["parameter": .text(name)])
        }
        return value
    }
}
