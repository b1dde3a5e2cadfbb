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

    /// The app's totals; sessions and records those of `tally` (the page's filter), of
    /// `machine` only when given.
    func overview(appID: Int64, tally: FlowTally, machine: String?) async throws -> FleetOverview {
        var overview = FleetOverview(devices: 0, sessions: 0, records: 0, lastUpload: nil, projectionLag: 0)
        for (devices, lastUpload) in try await client.rows(
            """
            SELECT count(*)::bigint, max(updated_at) FROM stores WHERE app_id = \(appID) AND next_sequence > 1
            """, logger: logger
        ).decode((Int64, Date?).self) {
            overview.devices = devices
            overview.lastUpload = lastUpload
        }
        for (name, counts) in tally.machines where machine == nil || machine == name {
            overview.sessions += counts.sessions
            overview.records += counts.records
        }
        overview.projectionLag = try await status(appID: appID).reduce(0) { $0 + $1.lag }
        return overview
    }

    /// The definition of `machine` received last (the app's newest build), `nil` when none was
    /// received or the stored one does not decode (the page then orders states by count).
    func latestDefinition(appID: Int64, machine: String) async throws -> MachineDefinition? {
        for document in try await client.rows(
            """
            SELECT document FROM definitions WHERE app_id = \(appID) AND machine = \(machine)
            ORDER BY received_at DESC, content_version LIMIT 1
            """, logger: logger
        ).decode(ByteBuffer.self) {
            return try? MachineDefinition(jsonDocument: Data(buffer: document))
        }
        return nil
    }
}
