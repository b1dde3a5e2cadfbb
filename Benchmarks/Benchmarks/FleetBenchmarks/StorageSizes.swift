import Foundation
import PostgresNIO
import RewindServer

/// What the server's tables take in PostgreSQL after ingestion, read with
/// `pg_table_size` (heap, TOAST, free space and visibility maps) and `pg_relation_size` of each
/// index, as loaded (no VACUUM: what a fleet's database holds right after uploads).
struct PostgresSizes: Sendable {
    /// One relation: a table (its `pg_table_size`) or an index (its `pg_relation_size`).
    struct Relation: Sendable {
        var name: String
        var table: String
        var isIndex: Bool
        var bytes: Int
    }

    /// The tables' and their indexes' sizes.
    var relations: [Relation]
    /// Rows of `records`.
    var records: Int
    /// Rows of `sessions`.
    var sessions: Int
    /// The sum of the `record` column's stored sizes (`pg_column_size`: the record's bytes as
    /// kept, with their varlena header).
    var recordColumnBytes: Int

    /// The tables measured: those ingestion writes.
    static let tables = ["records", "sessions", "definitions", "stores"]

    /// Reads the sizes of `database`'s ingestion tables.
    static func read(_ database: FleetDatabase) async throws -> PostgresSizes {
        try await database.withClient { client in
            let logger = FleetCluster.logger
            var relations: [Relation] = []
            for table in tables {
                for try await bytes in try await client.query(
                    "SELECT pg_table_size(\(table)::regclass)::bigint", logger: logger
                )
                .decode(Int64.self) {
                    relations.append(Relation(name: table, table: table, isIndex: false, bytes: Int(bytes)))
                }
                for try await (name, bytes) in try await client.query(
                    """
                    SELECT indexrelid::regclass::text, pg_relation_size(indexrelid)::bigint FROM pg_index
                    WHERE indrelid = \(table)::regclass ORDER BY 1
                    """, logger: logger
                ).decode((String, Int64).self) {
                    relations.append(Relation(name: name, table: table, isIndex: true, bytes: Int(bytes)))
                }
            }
            var records = 0
            var sessions = 0
            var recordColumnBytes = 0
            for try await (count, bytes) in try await client.query(
                "SELECT count(*)::bigint, coalesce(sum(pg_column_size(record)), 0)::bigint FROM records", logger: logger
            ).decode((Int64, Int64).self) {
                records = Int(count)
                recordColumnBytes = Int(bytes)
            }
            for try await count in try await client.query("SELECT count(*)::bigint FROM sessions", logger: logger)
                .decode(Int64.self)
            {
                sessions = Int(count)
            }
            return PostgresSizes(
                relations: relations, records: records, sessions: sessions, recordColumnBytes: recordColumnBytes)
        }
    }

    /// The bytes of `table`: its heap (`isIndex == false`), its indexes (`true`), or both (`nil`).
    func bytes(of table: String, indexes: Bool?) -> Int {
        relations.filter { $0.table == table && (indexes == nil || $0.isIndex == indexes) }.reduce(0) { $0 + $1.bytes }
    }

    /// Every table and index.
    var totalBytes: Int { relations.reduce(0) { $0 + $1.bytes } }
}

/// `bytes` scaled from `records` records to one million.
func perMillion(_ bytes: Int, records: Int) -> Int {
    Int((Double(bytes) * 1_000_000 / Double(max(records, 1))).rounded())
}

/// `bytes` in MB (10^6), one decimal.
func megabytes(_ bytes: Int) -> String {
    String(format: "%.1f MB", Double(bytes) / 1e6)
}
