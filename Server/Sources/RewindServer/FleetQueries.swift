import Foundation
import Logging
import PostgresNIO
import Rewind
import RewindWire

/// The read side of the fleet, scoped to one app: the session list (from `sessions`, filtered
/// with the screen-flow states' columns) and answers computed from the projections' states,
/// decoded by the projections' own `decode` (funnels, navigation stacks, depth statistics).
/// Every value reaches PostgreSQL as a bound parameter.
struct FleetQueries: Sendable {
    let client: PostgresClient
    let logger: Logger

    // MARK: Sessions

    /// A session's row in `GET /v1/sessions` (RewindWire's shape, which the CLI reads).
    typealias SessionSummary = FleetSessionSummary

    /// What to list.
    struct SessionFilter {
        var machine: String?
        /// The session's id (exact): every store's copy of one session.
        var session: String?
        /// A state the session's active configuration contains.
        var state: String?
        var store: UUID?
        /// On the session's last record's time.
        var range = TimeRange()
        var limit = 100
        var after: SessionCursor?
    }

    /// A page of sessions, ordered by store and then session id in natural order (`kanji-12`
    /// before `kanji-102`: migration 5's collation), and the cursor of the next page (`nil` on
    /// the last one). Keyset paging: sessions ingested meanwhile never shift a page.
    func sessions(appID: Int64, _ filter: SessionFilter) async throws -> (
        sessions: [SessionSummary], next: SessionCursor?
    ) {
        let flows = ServerProjections.screenFlows.projection.name
        let afterStore = filter.after?.storeID
        let afterSession = filter.after?.sessionID
        let rows = try await client.rows(
            """
            SELECT s.store_id, s.session_id, s.machine, s.definition, s.head_version, s.head_sequence, s.record_count,
                s.first_recorded_at_us, s.last_recorded_at_us, s.last_event, f.configuration
            FROM sessions s
            LEFT JOIN projection_states f ON f.app_id = s.app_id AND f.store_id = s.store_id
                AND f.projection = \(flows) AND f.key = s.session_id
            WHERE s.app_id = \(appID)
                AND (\(filter.machine)::text IS NULL OR s.machine = \(filter.machine))
                AND (\(filter.session)::text IS NULL OR s.session_id = \(filter.session))
                AND (\(filter.store)::uuid IS NULL OR s.store_id = \(filter.store))
                AND (\(filter.range.from)::bigint IS NULL OR s.last_recorded_at_us >= \(filter.range.from))
                AND (\(filter.range.to)::bigint IS NULL OR s.last_recorded_at_us < \(filter.range.to))
                AND (\(filter.state)::text IS NULL OR f.configuration @> ARRAY[\(filter.state)::text])
                AND (\(afterStore)::uuid IS NULL OR (s.store_id, s.session_id COLLATE rewind_natural)
                    > (\(afterStore)::uuid, \(afterSession)::text COLLATE rewind_natural))
            ORDER BY s.store_id, s.session_id COLLATE rewind_natural
            LIMIT \(filter.limit + 1)
            """, logger: logger)
        var list: [SessionSummary] = []
        for row in rows {
            let (
                storeID, sessionID, machine, definition, headVersion, headSequence, recordCount, first, last, event,
                configuration
            ) =
                try row.decode(
                    (UUID, String, String, String, Int64, Int64, Int64, Int64, Int64, String, [String]?).self)
            list.append(
                SessionSummary(
                    storeID: storeID, sessionID: sessionID, machine: machine, definition: definition,
                    headVersion: headVersion, headSequence: headSequence, recordCount: recordCount,
                    firstRecordedAtMicroseconds: first, lastRecordedAtMicroseconds: last, lastEvent: event,
                    configuration: configuration))
        }
        guard list.count > filter.limit else { return (list, nil) }
        list.removeLast()
        return (list, list.last.map { SessionCursor(storeID: $0.storeID, sessionID: $0.sessionID) })
    }

    /// Whether the app has a session of `machine`.
    func hasMachine(appID: Int64, _ machine: String) async throws -> Bool {
        for _ in try await client.rows(
            """
            SELECT 1 FROM sessions WHERE app_id = \(appID) AND machine = \(machine) LIMIT 1
            """, logger: logger)
        {
            return true
        }
        return false
    }

    // MARK: Navigation

    /// A session's navigation state (its machine and stack), `nil` when the projection holds none.
    func navigation(appID: Int64, storeID: UUID, sessionID: String) async throws -> NavigationProjection
        .SessionNavigation?
    {
        let navigation = ServerProjections.navigation
        for state in try await client.rows(
            """
            SELECT state FROM projection_states
            WHERE app_id = \(appID) AND store_id = \(storeID) AND projection = \(navigation.projection.name)
                AND key = \(sessionID)
            """, logger: logger
        ).decode(ByteBuffer.self) {
            return try navigation.decode(state)
        }
        return nil
    }

    /// Whether the app holds the session.
    func hasSession(appID: Int64, storeID: UUID, sessionID: String) async throws -> Bool {
        for _ in try await client.rows(
            """
            SELECT 1 FROM sessions WHERE app_id = \(appID) AND store_id = \(storeID) AND session_id = \(sessionID)
            """, logger: logger)
        {
            return true
        }
        return false
    }

    /// The depths of `machine`'s sessions' stacks over every device: ``FlowAggregates``'
    /// `stack_depths`, counted from the states' `depth` (as
    /// ``NavigationStacks/depthStatistics(machine:)`` counts a device's).
    func depthStatistics(appID: Int64, machine: String) async throws -> StackDepthStatistics {
        var histogram: [Int: Int] = [:]
        for (depth, sessions) in try await client.rows(
            """
            SELECT depth, sessions FROM stack_depths WHERE app_id = \(appID) AND machine = \(machine) AND sessions > 0
            """, logger: logger
        ).decode((Int32, Int64).self) {
            histogram[Int(depth)] = Int(sessions)
        }
        return StackDepthStatistics(histogram: histogram)
    }

    // MARK: Status

    /// One projection's progress over the app's stores.
    struct ProjectionProgress: Codable, Equatable {
        /// The projection's name.
        var name: String
        /// The projection's version.
        var version: UInt32
        /// How many stores the app has.
        var stores: Int64
        /// How many records are not folded yet (over the stores where the projection has not
        /// stopped on a failure).
        var lag: Int64
        /// How many stores the projection stopped on (its `apply` threw on a record).
        var failedStores: Int64
    }

    /// Every projection's progress over the app's stores.
    func status(appID: Int64) async throws -> [ProjectionProgress] {
        var progress: [ProjectionProgress] = []
        for (name, version) in ServerProjections.all {
            let current = Int64(version)
            for (stores, lag, failed) in try await client.rows(
                """
                SELECT count(*)::bigint,
                    coalesce(sum(CASE WHEN c.failure IS NOT NULL AND c.version = \(current) THEN 0
                        ELSE s.next_sequence - 1 - CASE WHEN c.version = \(current) THEN c.sequence ELSE 0 END END), 0)::bigint,
                    count(*) FILTER (WHERE c.failure IS NOT NULL AND c.version = \(current))::bigint
                FROM stores s
                LEFT JOIN projection_checkpoints c ON c.app_id = s.app_id AND c.store_id = s.store_id AND c.projection = \(name)
                WHERE s.app_id = \(appID)
                """, logger: logger
            ).decode((Int64, Int64, Int64).self) {
                progress.append(
                    ProjectionProgress(name: name, version: version, stores: stores, lag: lag, failedStores: failed))
            }
        }
        return progress
    }
}
