import Foundation
import Logging
import PostgresNIO
import Rewind
import RewindStore

/// The bases of trimmed sessions: the state a session's history begins at when the versions
/// before its first record are gone, kept in `sessions.base_snapshot` (SessionSnapshot's JSON) so
/// replay begins there, as it does on the device (``SessionLog/load(_:from:)`` reads it through
/// ``PostgresTransitionLog/Reader/baseSnapshot(of:)``).
///
/// A base reaches the server two ways, one per way a session's history can begin late here:
/// - **Trimmed after its upload** (a `records` erasure notice): the server held the records the
///   device removed, so it rebuilds the state at the first version kept from them, with the
///   device's own replay (``LogReplay/snapshot(of:at:)``), before removing them — the state the
///   device made its base from the same records.
/// - **Trimmed before its upload** (or imported from a trimmed archive): the records never came,
///   so the device sends its base with the batch that holds the session's first kept record
///   (`RWB2`, ``RecordBatch/Base``); ingestion checks and stores it.
///
/// A session that begins after version 1 without a base (a device that predates bases) is not
/// replayed: its replay answers 410 with the version its history begins at.
enum SessionBases {
    /// A base to store: the session, the version it is at (the session's first version) and the
    /// snapshot's JSON.
    struct Base: Sendable {
        var session: String
        var version: Int64
        var snapshot: [UInt8]
    }

    /// The bases the sessions of store `storeID` will have once the records at `ranges` are
    /// removed: for each session with records there and records left after, the state at its
    /// first version left, rebuilt from the records the server holds now. A session whose state
    /// cannot be rebuilt (records the server never held, a definition it lacks) gets none, and
    /// its replay answers 410 as before; the failure is logged.
    ///
    /// Read outside the notices' transaction, on the pool, before the records go: records never
    /// change once stored, so the states are those the transaction's removal leaves behind.
    static func rebuilt(
        removing ranges: [ClosedRange<Int64>], appID: Int64, storeID: UUID, client: PostgresClient, logger: Logger
    ) async throws -> [Base] {
        guard !ranges.isEmpty else { return [] }
        let (firsts, lasts) = (ranges.map(\.lowerBound), ranges.map(\.upperBound))
        var firstKept: [(session: String, version: Int64)] = []
        for row in try await client.rows(
            """
            SELECT r.session_id, min(r.version) FROM records r
            WHERE r.app_id = \(appID) AND r.store_id = \(storeID)
                AND r.session_id IN (
                    SELECT t.session_id FROM records t
                    JOIN unnest(\(firsts)::bigint[], \(lasts)::bigint[]) AS x(f, l) ON t.sequence BETWEEN x.f AND x.l
                    WHERE t.app_id = \(appID) AND t.store_id = \(storeID))
                AND NOT EXISTS (SELECT 1 FROM unnest(\(firsts)::bigint[], \(lasts)::bigint[]) AS x(f, l)
                    WHERE r.sequence BETWEEN x.f AND x.l)
            GROUP BY r.session_id ORDER BY r.session_id
            """, logger: logger
        ).decode((String, Int64).self) {
            firstKept.append(row)
        }
        let log = PostgresTransitionLog(client: client, appID: appID, storeID: storeID, logger: logger)
        var bases: [Base] = []
        for (session, version) in firstKept where version > 1 {
            do {
                let id = try SessionID(session)
                guard let loaded = try await log.session(id) else { continue }
                let snapshot = try LogReplay(log: loaded).snapshot(of: id, at: UInt64(version))
                bases.append(Base(session: session, version: version, snapshot: try encoder.encode(snapshot).bytes))
            } catch {
                logger.warning(
                    "no base for a trimmed session: its replay will answer 410",
                    metadata: [
                        "store": "\(storeID)", "session": "\(session)", "version": "\(version)", "error": "\(error)",
                    ])
            }
        }
        return bases
    }

    /// The bases a batch carries, checked: each must be the session's snapshot (JSON that decodes
    /// as one) at the version it names.
    ///
    /// - Throws: ``APIError`` 400 naming the base that does not check.
    static func checked(_ bases: [RecordBatch.Base]) throws(APIError) -> [Base] {
        var checked: [Base] = []
        for (index, base) in bases.enumerated() {
            let details: [String: APIError.Detail] = [
                "baseIndex": .integer(Int64(index)), "session": .text(base.session),
            ]
            let snapshot: SessionSnapshot
            do {
                snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: Data(base.snapshot))
            } catch {
                throw APIError(
                    .badRequest, "base \(index) (session '\(base.session)') is not a session snapshot: \(error)",
                    details: details)
            }
            guard snapshot.version == base.version, let version = Int64(exactly: base.version) else {
                throw APIError(
                    .badRequest,
                    "base \(index) (session '\(base.session)') names version \(base.version) but its snapshot is of version \(snapshot.version)",
                    details: details)
            }
            checked.append(Base(session: base.session, version: version, snapshot: base.snapshot))
        }
        return checked
    }

    /// Stores each base on its session's row of store `storeID` when the session's history begins
    /// at the base's version and the row has no base yet; any other base is ignored (the server
    /// holds the versions before it, or a base already).
    static func store(
        _ bases: [Base], appID: Int64, storeID: UUID, connection: PostgresConnection, logger: Logger
    ) async throws {
        for base in bases {
            try await connection.query(
                """
                UPDATE sessions SET base_snapshot = \(ByteBuffer(bytes: base.snapshot))
                WHERE app_id = \(appID) AND store_id = \(storeID) AND session_id = \(base.session)
                    AND first_version = \(base.version) AND base_snapshot IS NULL
                """, logger: logger)
        }
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

extension Data {
    /// The bytes, as an array.
    fileprivate var bytes: [UInt8] { [UInt8](self) }
}
