import Foundation
import Logging
import PostgresNIO
import Rewind
import RewindWire

/// A page of `GET /v1/stores/{store}/sessions` (RewindWire's `StoreSessionPage`, the shape the CLI
/// reads), read with one query: the `sessions` rows, each with its first record for the fork
/// origin and its head record for the states.
extension StoreSessionPage {
    /// The page of up to `limit` sessions of store `storeID` of app `appID` whose ids come after
    /// `after` (`""`: from the first).
    ///
    /// - Throws: ``PostgresLogError/damagedRecord(storeID:sequence:reason:)``, PostgreSQL's errors.
    static func read(
        client: PostgresClient, appID: Int64, storeID: UUID, after: String, limit: Int, logger: Logger
    ) async throws -> StoreSessionPage {
        typealias Row = PostgresTransitionLog.Reader.StoredRecord
        var page = StoreSessionPage(sessions: [], total: 0, next: nil)
        var count = 0
        for (
            id, machine, headVersion, headSequence, recordCount, firstAt, lastAt, total,
            firstSequence, firstVersion, firstBytes, headBytes
        )
            in try await client.rows(
                """
                SELECT s.session_id, s.machine, s.head_version, s.head_sequence, s.record_count,
                    s.first_recorded_at_us, s.last_recorded_at_us,
                    (SELECT count(*) FROM sessions WHERE app_id = \(appID) AND store_id = \(storeID)),
                    f.sequence, f.version, f.record, h.record
                FROM (
                    SELECT * FROM sessions
                    WHERE app_id = \(appID) AND store_id = \(storeID) AND session_id > \(after)
                    ORDER BY session_id LIMIT \(Int64(limit) + 1)
                ) s
                CROSS JOIN LATERAL (
                    -- Its first record held (version 1, unless the device trimmed its history).
                    SELECT sequence, version, record FROM records
                    WHERE app_id = \(appID) AND store_id = \(storeID) AND session_id = s.session_id
                    ORDER BY version LIMIT 1
                ) f
                CROSS JOIN LATERAL (
                    SELECT record FROM records
                    WHERE app_id = \(appID) AND store_id = \(storeID) AND sequence = s.head_sequence
                ) h
                ORDER BY s.session_id
                """, logger: logger
            ).decode(
                (String, String, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, ByteBuffer, ByteBuffer).self)
        {
            page.total = total
            count += 1
            guard count <= limit else {
                page.next = page.sessions.last?.session
                break
            }
            let first = try PostgresTransitionLog.Reader.decode(
                Row(sequence: firstSequence, session: id, version: firstVersion, bytes: firstBytes), storeID: storeID)
            let head = try PostgresTransitionLog.Reader.decode(
                Row(sequence: headSequence, session: id, version: headVersion, bytes: headBytes), storeID: storeID)
            let info = SessionInfo(
                session: first.session, headVersion: UInt64(headVersion), headSequence: UInt64(headSequence),
                machine: machine, recordCount: UInt64(recordCount),
                created: Timestamp(microsecondsSince1970: firstAt), updated: Timestamp(microsecondsSince1970: lastAt),
                origin: first.origin)
            page.sessions.append(SessionListing(info, head: head))
        }
        if page.sessions.isEmpty && page.total == 0 && !after.isEmpty {
            // Past the last session: the count alone.
            for total in try await client.rows(
                """
                SELECT count(*) FROM sessions WHERE app_id = \(appID) AND store_id = \(storeID)
                """, logger: logger
            ).decode(Int64.self) {
                page.total = total
            }
        }
        return page
    }
}
