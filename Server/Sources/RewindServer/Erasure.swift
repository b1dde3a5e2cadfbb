import Foundation
import Logging
import PostgresNIO
import RewindWire

/// Why a session is tombstoned: the device erased it (an erasure notice) or the app team asked
/// (an erasure request).
enum TombstoneOrigin: String, Sendable {
    case device
    case request
}

/// The server's erasure, in SQL on one transaction's connection: the one function that deletes
/// sessions (``eraseSessions(_:appID:erasedAt:tombstone:connection:logger:)``, used by erasure
/// notices, erasure requests and retention), the removal of records of a session that is kept
/// (``removeRecords(at:appID:storeID:erasedAt:connection:logger:)``), the stores' erased ranges
/// (`stores.erased_sequences`, an `int8multirange` PostgreSQL keeps coalesced), and tombstones
/// (`tombstones`: a keyed hash of the session id, `rewind_session_hash`).
///
/// ## Locks
/// Every erasure takes the app's erasure lock exclusively (``lockApp(_:exclusive:connection:logger:)``)
/// before any row lock; ingestion takes it shared before its store's row. So an erasure waits for
/// the batches in flight and batches wait for the erasure: a batch's tombstone check and an
/// erasure's tombstone never interleave, and a session being stored is never half-erased. An
/// erasure then locks the rows of the stores it changes (in store order) and their projection
/// checkpoints (what catch-up locks), so a fold in progress finishes before the states it wrote
/// are deleted and never writes a state of an erased session afterwards.
enum Erasure {
    /// The first key of the app's advisory lock (the second is the app's id).
    static let lockClass: Int32 = 0x5277_0002

    /// Takes the erasure lock of app `appID` until the transaction ends: exclusively for an
    /// erasure, shared for ingestion.
    static func lockApp(_ appID: Int64, exclusive: Bool, connection: PostgresConnection, logger: Logger) async throws {
        let app = Int32(truncatingIfNeeded: appID)
        if exclusive {
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockClass), \(app))", logger: logger)
        } else {
            try await connection.query("SELECT pg_advisory_xact_lock_shared(\(lockClass), \(app))", logger: logger)
        }
    }

    /// Erases the sessions `ids` from every store of app `appID`, in the caller's transaction
    /// (which holds the app's lock exclusively): their records (whose sequences become erased
    /// ranges of their stores), their projection states, their session rows; with `tombstone`,
    /// a tombstone of each at `erasedAt` (also for a session the server holds none of), so that
    /// no later upload stores it again.
    ///
    /// - Returns: Each session with the stores it was removed from and their record counts.
    static func eraseSessions(
        _ ids: [String], appID: Int64, erasedAt: Date, tombstone: TombstoneOrigin?,
        connection: PostgresConnection, logger: Logger
    ) async throws -> [ErasedSession] {
        guard !ids.isEmpty else { return [] }
        if let tombstone {
            try await connection.query(
                """
                INSERT INTO tombstones (app_id, session_hash, erased_at, origin)
                SELECT \(appID), rewind_session_hash(\(appID), s), \(erasedAt), \(tombstone.rawValue)
                FROM unnest(\(ids)::text[]) AS s
                ON CONFLICT DO NOTHING
                """, logger: logger)
        }
        var stores: [UUID] = []
        for try await store in try await connection.query(
            """
            SELECT store_id FROM stores WHERE app_id = \(appID) AND store_id IN (
                SELECT store_id FROM sessions WHERE app_id = \(appID) AND session_id = ANY(\(ids)))
            ORDER BY store_id FOR UPDATE
            """, logger: logger
        ).decode(UUID.self) {
            stores.append(store)
        }
        var removed: [String: [ErasedSession.StoreRecords]] = [:]
        if !stores.isEmpty {
            try await lockCheckpoints(of: stores, appID: appID, connection: connection, logger: logger)
            for try await (store, session, count) in try await connection.query(
                """
                WITH gone AS (
                    DELETE FROM records
                    WHERE app_id = \(appID) AND store_id = ANY(\(stores)) AND session_id = ANY(\(ids))
                    RETURNING store_id, session_id, sequence
                ), erased AS (
                    UPDATE stores s SET erased_sequences = s.erased_sequences + g.ranges, updated_at = now()
                    FROM (SELECT store_id, range_agg(int8range(sequence, sequence, '[]')) AS ranges FROM gone GROUP BY store_id) g
                    WHERE s.app_id = \(appID) AND s.store_id = g.store_id
                )
                SELECT store_id, session_id, count(*)::bigint FROM gone GROUP BY store_id, session_id ORDER BY store_id
                """, logger: logger
            ).decode((UUID, String, Int64).self) {
                removed[session, default: []].append(.init(storeID: store, records: count))
            }
            // The built-in projections key their states by session id: a session's states are
            // its whole contribution (funnels and stacks are sums over states at query time).
            try await connection.query(
                """
                DELETE FROM projection_states WHERE app_id = \(appID) AND store_id = ANY(\(stores)) AND key = ANY(\(ids))
                """, logger: logger)
            try await connection.query(
                """
                DELETE FROM sessions WHERE app_id = \(appID) AND session_id = ANY(\(ids))
                """, logger: logger)
        }
        logger.info(
            "erased sessions",
            metadata: [
                "app": "\(appID)", "sessions": "\(ids.count)", "stores": "\(stores.count)",
                "tombstone": "\(tombstone?.rawValue ?? "none")",
            ])
        return ids.map { ErasedSession(session: $0, stores: removed[$0] ?? []) }
    }

    /// Removes the records of store `storeID` at the sequences of `ranges` without erasing their
    /// sessions (history a device trimmed): each session keeps what is left, its first version
    /// and record count recomputed, `history_erased_at` set and its base cleared (the caller
    /// stores the new one: ``storeBases(_:appID:storeID:connection:logger:)``); a session left
    /// with no record is removed with its projection states (no tombstone). The ranges become erased ranges of
    /// the store. The projection states of kept sessions stay as they are (the device's do too).
    ///
    /// - Returns: The sessions that lost records, each with this store's count.
    static func removeRecords(
        at ranges: [ClosedRange<Int64>], appID: Int64, storeID: UUID, erasedAt: Date,
        connection: PostgresConnection, logger: Logger
    ) async throws -> [ErasedSession] {
        guard !ranges.isEmpty else { return [] }
        try await lockCheckpoints(of: [storeID], appID: appID, connection: connection, logger: logger)
        let (firsts, lasts) = (ranges.map(\.lowerBound), ranges.map(\.upperBound))
        var removed: [(session: String, count: Int64)] = []
        for try await (session, count) in try await connection.query(
            """
            WITH gone AS (
                DELETE FROM records r USING unnest(\(firsts)::bigint[], \(lasts)::bigint[]) AS x(f, l)
                WHERE r.app_id = \(appID) AND r.store_id = \(storeID) AND r.sequence BETWEEN x.f AND x.l
                RETURNING r.session_id
            )
            SELECT session_id, count(*)::bigint FROM gone GROUP BY session_id ORDER BY session_id
            """, logger: logger
        ).decode((String, Int64).self) {
            removed.append((session, count))
        }
        try await addErasedRanges(ranges, appID: appID, storeID: storeID, connection: connection, logger: logger)
        let ids = removed.map(\.session)
        guard !ids.isEmpty else { return [] }
        try await connection.query(
            """
            UPDATE sessions s SET first_version = k.first_version, record_count = k.record_count,
                first_recorded_at_us = k.first_at, head_version = h.version, head_sequence = h.sequence,
                machine = h.machine, definition = h.definition, last_event = h.event,
                last_recorded_at_us = h.recorded_at_us, history_erased_at = \(erasedAt), base_snapshot = NULL
            FROM (
                SELECT session_id, min(version) AS first_version, count(*)::bigint AS record_count,
                    min(recorded_at_us) AS first_at
                FROM records WHERE app_id = \(appID) AND store_id = \(storeID) AND session_id = ANY(\(ids))
                GROUP BY session_id
            ) k JOIN (
                SELECT DISTINCT ON (session_id) session_id, version, sequence, machine, definition, event, recorded_at_us
                FROM records WHERE app_id = \(appID) AND store_id = \(storeID) AND session_id = ANY(\(ids))
                ORDER BY session_id, version DESC
            ) h ON h.session_id = k.session_id
            WHERE s.app_id = \(appID) AND s.store_id = \(storeID) AND s.session_id = k.session_id
            """, logger: logger)
        var emptied: [String] = []
        for try await session in try await connection.query(
            """
            DELETE FROM sessions s WHERE s.app_id = \(appID) AND s.store_id = \(storeID) AND s.session_id = ANY(\(ids))
                AND NOT EXISTS (SELECT 1 FROM records r
                    WHERE r.app_id = s.app_id AND r.store_id = s.store_id AND r.session_id = s.session_id)
            RETURNING s.session_id
            """, logger: logger
        ).decode(String.self) {
            emptied.append(session)
        }
        if !emptied.isEmpty {
            try await connection.query(
                """
                DELETE FROM projection_states WHERE app_id = \(appID) AND store_id = \(storeID) AND key = ANY(\(emptied))
                """, logger: logger)
        }
        return removed.map { ErasedSession(session: $0.session, stores: [.init(storeID: storeID, records: $0.count)]) }
    }

    /// The sessions of store `storeID` that the server holds records of at the sequences of
    /// `ranges`, by id.
    static func sessions(
        at ranges: [ClosedRange<Int64>], appID: Int64, storeID: UUID, connection: PostgresConnection, logger: Logger
    ) async throws -> [String] {
        guard !ranges.isEmpty else { return [] }
        let (firsts, lasts) = (ranges.map(\.lowerBound), ranges.map(\.upperBound))
        var ids: [String] = []
        for try await id in try await connection.query(
            """
            SELECT DISTINCT r.session_id FROM records r
            JOIN unnest(\(firsts)::bigint[], \(lasts)::bigint[]) AS x(f, l) ON r.sequence BETWEEN x.f AND x.l
            WHERE r.app_id = \(appID) AND r.store_id = \(storeID)
            ORDER BY 1
            """, logger: logger
        ).decode(String.self) {
            ids.append(id)
        }
        return ids
    }

    /// Adds `ranges` to the erased ranges of store `storeID` (PostgreSQL coalesces them).
    static func addErasedRanges(
        _ ranges: [ClosedRange<Int64>], appID: Int64, storeID: UUID, connection: PostgresConnection, logger: Logger
    ) async throws {
        guard !ranges.isEmpty else { return }
        let (firsts, lasts) = (ranges.map(\.lowerBound), ranges.map(\.upperBound))
        try await connection.query(
            """
            UPDATE stores SET erased_sequences = erased_sequences + (
                SELECT range_agg(int8range(f, l, '[]')) FROM unnest(\(firsts)::bigint[], \(lasts)::bigint[]) AS x(f, l)),
                updated_at = now()
            WHERE app_id = \(appID) AND store_id = \(storeID)
            """, logger: logger)
    }

    /// Sets the next sequence of store `storeID` to `next`, or past the erased range that holds
    /// `next`: every sequence before a store's next one is held or erased, so an upload resumes
    /// past what the device erased. Returns the next sequence set.
    @discardableResult
    static func setNextSequence(
        _ next: Int64, appID: Int64, storeID: UUID, connection: PostgresConnection, logger: Logger
    ) async throws -> Int64 {
        var set = next
        for try await value in try await connection.query(
            """
            UPDATE stores SET next_sequence = coalesce(
                    (SELECT upper(r) FROM unnest(erased_sequences) AS r WHERE r @> \(next)::bigint), \(next)::bigint),
                updated_at = now()
            WHERE app_id = \(appID) AND store_id = \(storeID)
            RETURNING next_sequence
            """, logger: logger
        ).decode(Int64.self) {
            set = value
        }
        return set
    }

    /// The erased ranges of store `storeID` that meet `sequences`.
    static func erasedRanges(
        of storeID: UUID, appID: Int64, meeting sequences: ClosedRange<Int64>, connection: PostgresConnection,
        logger: Logger
    ) async throws -> [ClosedRange<Int64>] {
        var ranges: [ClosedRange<Int64>] = []
        for try await (lower, upper) in try await connection.query(
            """
            SELECT lower(r), upper(r) FROM stores, unnest(erased_sequences) AS r
            WHERE app_id = \(appID) AND store_id = \(storeID)
                AND r && int8range(\(sequences.lowerBound), \(sequences.upperBound), '[]')
            ORDER BY 1
            """, logger: logger
        ).decode((Int64, Int64).self) where lower < upper {
            ranges.append(lower...(upper - 1))
        }
        return ranges
    }

    /// Which of `ids` app `appID` has tombstones of.
    static func tombstoned(
        _ ids: [String], appID: Int64, connection: PostgresConnection, logger: Logger
    ) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        var found: Set<String> = []
        for try await id in try await connection.query(
            """
            SELECT s FROM unnest(\(ids)::text[]) AS s
            WHERE EXISTS (SELECT 1 FROM tombstones t
                WHERE t.app_id = \(appID) AND t.session_hash = rewind_session_hash(\(appID), s))
            """, logger: logger
        ).decode(String.self) {
            found.insert(id)
        }
        return found
    }

    /// The answer for a session of store `storeID` that replay cannot load because it was erased
    /// (410: when), or because its history begins after version 1 and the server holds no base to
    /// replay it from (410: the version its history begins at), or `nil` when neither.
    static func gone(
        _ session: String, appID: Int64, storeID: UUID, client: PostgresClient, logger: Logger
    ) async throws -> APIError? {
        for (erasedAt, firstVersion) in try await client.rows(
            """
            SELECT t.erased_at, NULL::bigint FROM tombstones t
            WHERE t.app_id = \(appID) AND t.session_hash = rewind_session_hash(\(appID), \(session))
            UNION ALL
            SELECT s.history_erased_at, s.first_version FROM sessions s
            WHERE s.app_id = \(appID) AND s.store_id = \(storeID) AND s.session_id = \(session) AND s.first_version > 1
                AND s.base_snapshot IS NULL
            """, logger: logger
        ).decode((Date?, Int64?).self) {
            var details: [String: APIError.Detail] = ["session": .text(session)]
            let when = erasedAt.map { " at \(timeText($0))" } ?? ""
            if let erasedAt { details["erasedAt"] = .text(timeText(erasedAt)) }
            guard let firstVersion else {
                return APIError(.gone, "session '\(session)' was erased\(when)", details: details)
            }
            details["historyBeginsAt"] = .integer(firstVersion)
            // Without a time, no notice trimmed it here: it reached the server from its base on (a
            // device trimmed it before uploading it, or imported it from a trimmed archive).
            let cause =
                erasedAt == nil
                ? "never reached the server (a device trimmed it, or imported the session from a trimmed archive)"
                : "was erased on the device\(when)"
            return APIError(
                .gone,
                "the history of session '\(session)' before version \(firstVersion) \(cause): "
                    + "history begins at version \(firstVersion), and the server replays a session from its first version only",
                details: details)
        }
        return nil
    }

    /// Locks the projection checkpoints of `stores` (the rows catch-up locks), in order. A
    /// checkpoint a store has no row of yet is inserted first (as catch-up inserts it), so a
    /// catch-up that has not begun on the store waits for the erasure too, instead of folding
    /// records the erasure deletes and writing their states after it.
    private static func lockCheckpoints(
        of stores: [UUID], appID: Int64, connection: PostgresConnection, logger: Logger
    ) async throws {
        let names = ServerProjections.all.map(\.name)
        let versions = ServerProjections.all.map { Int64($0.version) }
        try await connection.query(
            """
            INSERT INTO projection_checkpoints (app_id, store_id, projection, version)
            SELECT \(appID), s, p.name, p.version
            FROM unnest(\(stores)::uuid[]) AS s CROSS JOIN unnest(\(names)::text[], \(versions)::bigint[]) AS p(name, version)
            ORDER BY s, p.name
            ON CONFLICT DO NOTHING
            """, logger: logger)
        for try await _ in try await connection.query(
            """
            SELECT 1 FROM projection_checkpoints WHERE app_id = \(appID) AND store_id = ANY(\(stores))
            ORDER BY store_id, projection FOR UPDATE
            """, logger: logger)
        {}
    }

    /// A time as the API writes it: ISO 8601 in UTC, with fractional seconds.
    static func timeText(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// A time the API reads: ISO 8601, with or without fractional seconds.
    static func time(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            return date
        }
        return try? Date(text, strategy: Date.ISO8601FormatStyle())
    }
}
