import Foundation
import Hummingbird
import Logging
import PostgresNIO
import Rewind

/// `POST /v1/machines/{machine}/upgrade-check` (read key; the body is the new definition's JSON
/// interchange document): the upgrade check over every device's sessions of the machine, as
/// `rewind upgrade-check --json` prints it for one device store (``UpgradeCheckReport``, each
/// session's row naming its store). Sessions are streamed: read a page at a time from `sessions`
/// (keyset paging, by store and session id), each loaded from its store's
/// ``PostgresTransitionLog`` (awaiting PostgreSQL, never blocking a thread) and checked in memory
/// with the same ``LogReplay/upgradeCheck(_:against:migrations:)`` a device runs, then dropped:
/// memory holds one page, one session and the report, which lists at most `limit` sessions of
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
            for summary in page.sessions {
                let store = summary.storeID.uuidString.lowercased()
                do {
                    let id = try SessionID(summary.sessionID)
                    let log = PostgresTransitionLog(
                        client: client, appID: appID, storeID: summary.storeID, logger: logger)
                    // Erased since the page was read: not a session any more.
                    guard let loaded = try await log.session(id) else { continue }
                    report.add(try LogReplay(log: loaded).upgradeCheck(id, against: machine), store: store)
                } catch let error
                    where error is PostgresLogError || error is StoreError
                    || UpgradeCheckReport.isUnreadableSession(error)
                {
                    report.addUnreadable(
                        session: summary.sessionID, store: store, machine: name, reason: String(describing: error))
                }
            }
            after = page.next
        } while after != nil
        return report
    }
}
