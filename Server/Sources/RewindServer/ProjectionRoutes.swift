import Foundation
import Hummingbird
import Rewind
import RewindWire

/// The query endpoints over the projections (read key): the session list, funnels, navigation
/// stacks, depth statistics, the projections' progress, and the fleet page. See Server/README.md.
extension Routes {
    func addProjectionRoutes(to router: Router<BasicRequestContext>) {
        router.get("v1/projections/status") { request, _ in try await projectionStatus(request) }
        router.get("v1/machines/:machine/funnel") { request, context in try await funnel(request, context: context) }
        router.get("v1/machines/:machine/stacks") { request, context in try await stacks(request, context: context) }
        router.get("v1/stores/:storeID/sessions/:sessionID/stack") { request, context in
            try await stack(request, context: context)
        }
        router.get("v1/pages/fleet") { request, _ in try await fleetPage(request) }
    }

    var queries: FleetQueries { FleetQueries(client: client, logger: logger) }

    // MARK: Sessions

    /// `GET /v1/sessions`: filters `machine`, `session`, `state`, `store`, `from`/`to`; `limit` and
    /// `cursor`.
    func sessions(_ request: Request) async throws -> Response {
        let caller = try await authenticate(request, needs: .read)
        let filter = try Self.sessionFilter(QueryParameters(request))
        let page = try await queries.sessions(appID: caller.appID, filter)
        return try JSONResponse.make(body: FleetSessionList(sessions: page.sessions, nextCursor: page.next?.text))
    }

    /// The session list's filter from a request's query parameters.
    static func sessionFilter(_ parameters: QueryParameters, defaultLimit: Int = 100) throws(APIError)
        -> FleetQueries.SessionFilter
    {
        var filter = FleetQueries.SessionFilter()
        filter.machine = try parameters.text("machine")
        filter.session = try parameters.text("session")
        filter.state = try parameters.text("state")
        filter.store = try parameters.uuid("store")
        filter.range = try parameters.timeRange()
        filter.limit = try parameters.integer("limit", in: 1...1000, default: defaultLimit)
        if let text = try parameters.text("cursor") {
            guard let cursor = SessionCursor(text) else {
                throw QueryParameters.invalid("cursor", "is not a cursor this server gave (pass nextCursor as it came)")
            }
            filter.after = cursor
        }
        return filter
    }

    // MARK: Funnels and stacks

    /// A funnel as JSON.
    struct FunnelAnswer: Codable, Equatable {
        var machine: String
        var from: Int64?
        var to: Int64?
        var sessions: Int
        var reached: [String: Int]
        var stoppedAt: [String: Int]
    }

    /// `GET /v1/machines/{machine}/funnel?from=&to=`.
    private func funnel(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let caller = try await authenticate(request, needs: .read)
        let machine = try machineName(context)
        let range = try QueryParameters(request).timeRange()
        guard try await queries.hasMachine(appID: caller.appID, machine) else { throw Self.unknownMachine(machine) }
        let funnel = try await queries.tally(appID: caller.appID, machine: machine, range: range).funnel(machine)
        return try JSONResponse.make(
            body: FunnelAnswer(
                machine: machine, from: range.from, to: range.to, sessions: funnel.sessions,
                reached: funnel.reached, stoppedAt: funnel.stoppedAt))
    }

    /// Depth statistics as JSON (`histogram` keyed by depth).
    struct StacksAnswer: Codable, Equatable {
        var machine: String
        var sessions: Int
        var histogram: [String: Int]
        var maximum: Int
        var mean: Double
    }

    /// `GET /v1/machines/{machine}/stacks`.
    private func stacks(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let caller = try await authenticate(request, needs: .read)
        let machine = try machineName(context)
        guard try await queries.hasMachine(appID: caller.appID, machine) else { throw Self.unknownMachine(machine) }
        let statistics = try await queries.depthStatistics(appID: caller.appID, machine: machine)
        return try JSONResponse.make(
            body: StacksAnswer(
                machine: machine, sessions: statistics.sessions,
                histogram: Dictionary(uniqueKeysWithValues: statistics.histogram.map { (String($0.key), $0.value) }),
                maximum: statistics.maximum, mean: statistics.mean))
    }

    /// A navigation stack as JSON.
    struct StackAnswer: Codable, Equatable {
        struct Entry: Codable, Equatable {
            var screen: String
            var data: JSONValue
        }
        var storeID: UUID
        var sessionID: String
        var machine: String
        var depth: Int
        /// Root first.
        var entries: [Entry]
    }

    /// `GET /v1/stores/{store}/sessions/{session}/stack`.
    private func stack(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let caller = try await authenticate(request, needs: .read)
        let storeID = try storeID(context)
        guard let sessionID = Self.pathSegment(context, "sessionID") else {
            throw APIError(
                .badRequest, "the session id must be 1 to 1000 bytes of percent-encoded UTF-8 without NUL",
                details: ["parameter": .text("session")])
        }
        guard let navigation = try await queries.navigation(appID: caller.appID, storeID: storeID, sessionID: sessionID)
        else {
            if try await queries.hasSession(appID: caller.appID, storeID: storeID, sessionID: sessionID) {
                throw APIError(
                    .notFound,
                    "the session has no navigation state yet: the projections are catching up (GET /v1/projections/status)",
                    details: ["sessionID": .text(sessionID)])
            }
            throw APIError(
                .notFound, "no session \(sessionID.debugDescription) in store \(storeID)",
                details: ["storeID": .text(storeID.uuidString), "sessionID": .text(sessionID)])
        }
        return try JSONResponse.make(
            body: StackAnswer(
                storeID: storeID, sessionID: sessionID, machine: navigation.machine, depth: navigation.stack.count,
                entries: navigation.stack.entries.map { .init(screen: $0.screen, data: $0.data) }))
    }

    // MARK: Status

    /// `GET /v1/projections/status`: each projection's lag over the app's stores (0: caught up).
    private func projectionStatus(_ request: Request) async throws -> Response {
        struct Status: Encodable { var projections: [FleetQueries.ProjectionProgress] }
        let caller = try await authenticate(request, needs: .read)
        return try JSONResponse.make(body: Status(projections: try await queries.status(appID: caller.appID)))
    }

    // MARK: Helpers

    func machineName(_ context: BasicRequestContext) throws(APIError) -> String {
        guard let machine = Self.pathSegment(context, "machine") else {
            throw APIError(
                .badRequest, "the machine name must be 1 to 1000 bytes of percent-encoded UTF-8 without NUL",
                details: ["parameter": .text("machine")])
        }
        return machine
    }

    /// A path parameter, percent-decoded (the router gives it as sent); `nil` when it is missing,
    /// empty, not UTF-8 once decoded, over 1,000 bytes or holds a NUL.
    static func pathSegment(_ context: BasicRequestContext, _ name: String) -> String? {
        guard let raw = context.parameters.get(name), let text = raw.removingPercentEncoding,
            !text.isEmpty, text.utf8.count <= 1000, !text.utf8.contains(0)
        else { return nil }
        return text
    }

    static func unknownMachine(_ machine: String) -> APIError {
        APIError(
            .notFound, "this app has no session of machine \(machine.debugDescription)",
            details: ["machine": .text(machine)])
    }
}
