import Foundation
import Logging
import PostgresNIO
import Rewind

/// What the fleet page shows above the machines: the app's totals, and per machine its flow's
/// definition and its sessions by day. Computed by ``FleetQueries``, scoped to one app, under the
/// page's filters.
struct FleetOverview: Sendable {
    /// Device stores that uploaded.
    var devices: Int64
    /// Sessions (of the filtered machine, last updated in the range).
    var sessions: Int64
    /// Records of those sessions.
    var records: Int64
    /// When a device last uploaded (any store of the app), `nil` before the first upload.
    var lastUpload: Date?
    /// Records uploaded and not yet folded by the projections, over every projection and store.
    var projectionLag: Int64
}

/// One day (UTC) of a machine's trend.
struct FleetDay: Sendable, Equatable {
    /// Days since 1970-01-01 (UTC).
    var day: Int64
    /// Sessions whose first record is of that day.
    var started: Int64
    /// Sessions whose last record is of that day and which are in a finishing state.
    var finished: Int64
}

extension FleetQueries {
    /// µs in a day.
    static let microsecondsPerDay: Int64 = 86_400_000_000

    /// The app's totals; sessions and records only of `machine` (every machine when `nil`) and of
    /// sessions last updated in `range`.
    func overview(appID: Int64, machine: String?, range: TimeRange) async throws -> FleetOverview {
        var overview = FleetOverview(devices: 0, sessions: 0, records: 0, lastUpload: nil, projectionLag: 0)
        for try await (devices, lastUpload) in try await client.query(
            """
            SELECT count(*)::bigint, max(updated_at) FROM stores WHERE app_id = \(appID) AND next_sequence > 1
            """, logger: logger
        ).decode((Int64, Date?).self) {
            overview.devices = devices
            overview.lastUpload = lastUpload
        }
        for try await (sessions, records) in try await client.query(
            """
            SELECT count(*)::bigint, coalesce(sum(record_count), 0)::bigint FROM sessions
            WHERE app_id = \(appID)
                AND (\(machine)::text IS NULL OR machine = \(machine))
                AND (\(range.from)::bigint IS NULL OR last_recorded_at_us >= \(range.from))
                AND (\(range.to)::bigint IS NULL OR last_recorded_at_us < \(range.to))
            """, logger: logger
        ).decode((Int64, Int64).self) {
            overview.sessions = sessions
            overview.records = records
        }
        overview.projectionLag = try await status(appID: appID).reduce(0) { $0 + $1.lag }
        return overview
    }

    /// The definition of `machine` received last (the app's newest build), `nil` when none was
    /// received or the stored one does not decode (the page then orders states by count).
    func latestDefinition(appID: Int64, machine: String) async throws -> MachineDefinition? {
        for try await document in try await client.query(
            """
            SELECT document FROM definitions WHERE app_id = \(appID) AND machine = \(machine)
            ORDER BY received_at DESC, content_version LIMIT 1
            """, logger: logger
        ).decode(ByteBuffer.self) {
            return try? MachineDefinition(jsonDocument: Data(buffer: document))
        }
        return nil
    }

    /// `machine`'s sessions by day (UTC), oldest first, over the sessions last updated in
    /// `range`: how many started that day, and how many finished (whose active configuration
    /// holds one of `finishing`) on the day of their last record. Days without either are left out.
    func trend(appID: Int64, machine: String, range: TimeRange, finishing: [String]) async throws -> [FleetDay] {
        let flows = ServerProjections.screenFlows.projection.name
        var days: [Int64: FleetDay] = [:]
        for try await (day, started, finished) in try await client.query(
            """
            WITH chosen AS (
                SELECT s.first_recorded_at_us, s.last_recorded_at_us,
                    coalesce(f.configuration && \(finishing)::text[], false) AS finished
                FROM sessions s
                LEFT JOIN projection_states f ON f.app_id = s.app_id AND f.store_id = s.store_id
                    AND f.projection = \(flows) AND f.key = s.session_id
                WHERE s.app_id = \(appID) AND s.machine = \(machine)
                    AND (\(range.from)::bigint IS NULL OR s.last_recorded_at_us >= \(range.from))
                    AND (\(range.to)::bigint IS NULL OR s.last_recorded_at_us < \(range.to))
            )
            SELECT day, sum(started)::bigint, sum(finished)::bigint FROM (
                SELECT floor(first_recorded_at_us::numeric / \(Self.microsecondsPerDay))::bigint AS day,
                    1 AS started, 0 AS finished FROM chosen
                UNION ALL
                SELECT floor(last_recorded_at_us::numeric / \(Self.microsecondsPerDay))::bigint, 0, 1
                FROM chosen WHERE finished
            ) counted
            GROUP BY day ORDER BY day
            """, logger: logger
        ).decode((Int64, Int64, Int64).self) {
            days[day] = FleetDay(day: day, started: started, finished: finished)
        }
        return days.values.sorted { $0.day < $1.day }
    }
}
