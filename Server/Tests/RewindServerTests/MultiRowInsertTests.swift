import Foundation
import PostgresNIO
import Testing

@testable import RewindServer

/// The columnar insert every batch write goes through, against a real PostgreSQL: every column
/// kind reads back as it was bound (NULLs, empty and hostile text, arrays whose elements need
/// quoting), rows keep their order, SQL columns and a suffix apply, and an empty batch sends nothing.
@Suite(.timeLimit(.minutes(5))) struct MultiRowInsertTests {
    struct Row: Equatable {
        var id: Int64
        var store: UUID?
        var name: String?
        var bytes: [UInt8]
        var depth: Int32?
        var tags: [String]?
    }

    static let insert = MultiRowInsert(
        table: "probe",
        columns: [
            .int8("id"), .uuid("store"), .text("name"), .bytea("bytes"), .int4("depth"), .textArray("tags"),
            .sql("note", "'written by SQL'"),
        ],
        suffix: "ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name")

    static func write(_ rows: [Row], on connection: PostgresConnection) async throws {
        try await insert.run(rows, on: connection, logger: testLogger) { row, values in
            try values.append(row.id)
            try values.append(row.store)
            try values.append(row.name)
            try values.append(bytes: row.bytes)
            try values.append(row.depth)
            try values.append(textArray: row.tags)
        }
    }

    static func read(_ connection: PostgresConnection) async throws -> [(Row, String)] {
        var rows: [(Row, String)] = []
        for try await (id, store, name, bytes, depth, tags, note) in try await connection.query(
            "SELECT id, store, name, bytes, depth, tags, note FROM probe ORDER BY position", logger: testLogger
        ).decode((Int64, UUID?, String?, ByteBuffer, Int32?, [String]?, String).self) {
            rows.append(
                (Row(id: id, store: store, name: name, bytes: Array(buffer: bytes), depth: depth, tags: tags), note))
        }
        return rows
    }

    static func withProbeTable(_ body: @Sendable @escaping (PostgresConnection) async throws -> Void) async throws {
        let database = try await TestDatabase.make()
        try await database.withClient { client in
            try await client.withConnection { connection in
                try await connection.query(
                    """
                    CREATE TABLE probe (position bigserial, id bigint PRIMARY KEY, store uuid, name text,
                        bytes bytea NOT NULL, depth integer, tags text[], note text NOT NULL)
                    """, logger: testLogger)
                try await body(connection)
            }
        }
    }

    @Test func everyKindOfValueReadsBackAsBoundInOrder() async throws {
        let hostile = [
            "", "plain", "a,b", "{braces}", "\"quoted\"", "back\\slash", "NULL", " spaced ", "ünï ✓ 漢字", "\\\"",
        ]
        let rows = [
            Row(id: 7, store: UUID(), name: "first", bytes: Array(0...255), depth: 3, tags: hostile),
            Row(id: -2, store: nil, name: nil, bytes: [], depth: nil, tags: nil),
            Row(id: 5, store: UUID(), name: "", bytes: [0], depth: Int32.min, tags: []),
            Row(id: Int64.max, store: UUID(), name: "it's \"x\"\n", bytes: [0xFF], depth: Int32.max, tags: ["NULL"]),
        ]
        try await Self.withProbeTable { connection in
            try await Self.write(rows, on: connection)
            let read = try await Self.read(connection)
            #expect(read.map(\.0) == rows)
            #expect(read.map(\.1) == Array(repeating: "written by SQL", count: rows.count))
        }
    }

    @Test func theSuffixAppliesAndAnEmptyBatchWritesNothing() async throws {
        try await Self.withProbeTable { connection in
            try await Self.write([], on: connection)
            #expect(try await Self.read(connection).isEmpty)
            let first = Row(id: 1, store: nil, name: "old", bytes: [1], depth: nil, tags: ["a"])
            try await Self.write([first], on: connection)
            var second = first
            second.name = "new"
            second.tags = ["ignored"]
            try await Self.write(
                [second, Row(id: 2, store: nil, name: "two", bytes: [2], depth: 1, tags: nil)], on: connection)
            let read = try await Self.read(connection).map(\.0)
            // The conflict updates only the name, as the suffix says; the new row is inserted.
            #expect(read.map(\.id) == [1, 2])
            #expect(read.map(\.name) == ["new", "two"])
            #expect(read.first?.tags == ["a"])
        }
    }

    @Test func aBatchOfManyRowsIsOneStatement() async throws {
        // More values than one statement of bound scalars could carry (65,535).
        let rows = (0..<12_000).map {
            Row(
                id: Int64($0), store: UUID(), name: "n\($0)", bytes: [UInt8($0 & 0xFF)], depth: Int32($0),
                tags: ["\($0)"])
        }
        try await Self.withProbeTable { connection in
            try await Self.write(rows, on: connection)
            let read = try await Self.read(connection).map(\.0)
            #expect(read == rows)
        }
    }

    @Test func theArrayLiteralQuotesEveryElement() {
        #expect(MultiRowInsert.Values.arrayLiteral([]) == "{}")
        #expect(MultiRowInsert.Values.arrayLiteral(["a", "b c"]) == #"{"a","b c"}"#)
        #expect(MultiRowInsert.Values.arrayLiteral([#"x"y\z"#]) == #"{"x\"y\\z"}"#)
    }
}
