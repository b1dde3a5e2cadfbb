import Foundation
import Hummingbird
import Logging
import PostgresNIO
import Rewind
import RewindWire

/// `POST /v1/machines/{machine}/upgrade-check` (read key; the body is the new definition's JSON
/// interchange document): the upgrade check over every device's sessions of the machine, as
/// `rewind upgrade-check --json` prints it for one device store (``UpgradeCheckReport``, each
/// session's row naming its store). Sessions are streamed: read a page at a time from `sessions`
/// (keyset paging, by store and session id), each loaded from its store's
/// ``PostgresTransitionLog`` (awaiting PostgreSQL, never blocking a thread) and checked in memory
/// with the same ``LogReplay/upgradeCheck(_:against:migrations:)`` a device runs, then dropped —
/// eight of a page at a time, added to the report in the page's order: memory holds one page,
/// eight sessions and the report, which lists at most `limit` sessions of
/// each kind (default ``upgradeCheckListLimit``, `?limit=N`) and counts the rest (`unlisted`).
/// A machine the app has no session of is a 404, a body that is no definition a 400.
extension Routes {
    func addUpgradeCheckRoutes(to router: Router<BasicRequestContext>) {
        router.post("v1/machines/:machine/upgrade-check") { request, context in
            try await upgradeCheck(request, context: context)
        }
    }

    /// The most sessions of one kind the report lists by default.
    static let upgradeCheckListLimit = 1_000
    /// How many sessions one query of the check reads.
    static let upgradeCheckPageSize = 100

    private func upgradeCheck(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let caller = try await authenticate(request, needs: .read)
        let name = try machineName(context)
        let limit = try integer(request, "limit", in: 0...100_000) ?? Self.upgradeCheckListLimit
        let machine = try await definitionMachine(of: request)
        guard try await queries.hasMachine(appID: caller.appID, name) else { throw Self.unknownMachine(name) }
        let label = request.uri.queryParameters["label"].map(String.init) ?? machine.definition.name
        let report = try await answering {
            try await Self.upgradeCheck(
                of: name, against: machine, label: label, listLimit: limit, appID: caller.appID, client: client,
                logger: logger)
        }
        return try JSONResponse.make(body: report)
    }

    /// How many sessions of a page the check loads and checks at once.
    static let upgradeCheckConcurrency = 8

    /// What the check made of one session of a page.
    enum SessionOutcome: Sendable {
        case checked(SessionUpgradeCheck)
        case unreadable(String)
        case gone
    }

    /// Loads each of `sessions` from its store's log and checks it against `machine`, at most
    /// ``upgradeCheckConcurrency`` at once; the outcomes in the order of `sessions`.
    ///
    /// - Throws: PostgreSQL's errors; a session that cannot be read or re-run is `.unreadable`.
    static func checkConcurrently(
        _ sessions: [FleetSessionSummary], against machine: Machine, appID: Int64, client: PostgresClient,
        logger: Logger
    ) async throws -> [SessionOutcome] {
        try await withThrowingTaskGroup(of: (Int, SessionOutcome).self) { group in
            var outcomes = [SessionOutcome](repeating: .gone, count: sessions.count)
            var next = 0
            func start() {
                let (index, summary) = (next, sessions[next])
                next += 1
                group.addTask {
                    do {
                        let id = try SessionID(summary.sessionID)
                        let log = PostgresTransitionLog(
                            client: client, appID: appID, storeID: summary.storeID, logger: logger)
                        guard let loaded = try await log.session(id) else { return (index, .gone) }
                        return (index, .checked(try LogReplay(log: loaded).upgradeCheck(id, against: machine)))
                    } catch let error
                        where error is PostgresLogError || error is StoreError
                        || UpgradeCheckReport.isUnreadableSession(error)
                    {
                        return (index, .unreadable(String(describing: error)))
                    }
                }
            }
            while next < min(sessions.count, upgradeCheckConcurrency) { start() }
            while let (index, outcome) = try await group.next() {
                outcomes[index] = outcome
                if next < sessions.count { start() }
            }
            return outcomes
        }
    }

    /// Checks every session of machine `name` of app `appID` against `machine` (see the
    /// extension's overview), `pageSize` sessions per query.
    ///
    /// - Throws: PostgreSQL's errors. A session that cannot be read or re-run is listed as
    ///   unreadable (``UpgradeCheckReport/Kind/unreadable``) and the check goes on.
    static func upgradeCheck(
        of name: String, against machine: Machine, label: String, listLimit: Int, appID: Int64, client: PostgresClient,
        logger: Logger, pageSize: Int = upgradeCheckPageSize
    ) async throws -> UpgradeCheckReport {
        let queries = FleetQueries(client: client, logger: logger)
        var report = UpgradeCheckReport(
            label: label, machine: name, definition: machine.definition.contentVersion, listLimit: listLimit)
        var after: SessionCursor?
        repeat {
            let page = try await queries.sessions(
                appID: appID, FleetQueries.SessionFilter(machine: name, limit: pageSize, after: after))
            // Loaded and checked several at a time (their queries overlap; the checks use both
            // cores), added to the report in the page's order.
            let outcomes = try await Self.checkConcurrently(
                page.sessions, against: machine, appID: appID, client: client, logger: logger)
            for (summary, outcome) in zip(page.sessions, outcomes) {
                let store = summary.storeID.uuidString.lowercased()
                switch outcome {
                case .checked(let check): report.add(check, store: store)
                case .unreadable(let reason):
                    report.addUnreadable(session: summary.sessionID, store: store, machine: name, reason: reason)
                case .gone: continue  // erased since the page was read: not a session any more
                }
            }
            after = page.next
        } while after != nil
        return report
    }
}
