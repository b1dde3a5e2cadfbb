import Logging
import PostgresNIO

/// An `INSERT` of many rows in one statement whose text never changes: each column's values
/// travel as one array parameter, in PostgreSQL's binary array format, and the statement reads
/// them back as rows with `unnest`:
///
///     INSERT INTO table (a, b, c) SELECT u.a, u.b, now() FROM unnest($1::bigint[], $2::text[]) AS u(a, b) suffix
///
/// Used where a transaction writes a batch's rows (records, session heads, definitions,
/// projection states): one round trip per batch, a statement PostgreSQL parses in microseconds
/// whatever the number of rows, and two parameters' bind instead of one per value. (A statement of
/// `VALUES ($1, …), (…)` rows, its former form, had a new text per row count, at most 65,535
/// parameters, and a parse and bind that cost as much as the insert: `Benchmarks/HISTORY.md`,
/// "The fleet catch-up: one statement per chunk".)
///
/// `unnest` of several arrays yields their elements in order, so the rows are inserted, and an
/// `ON CONFLICT` takes its locks, in the order they are given.
struct MultiRowInsert: Sendable {
    /// A column of the insert: bound per row, or written by SQL.
    struct Column: Sendable {
        /// The column's name in the table (a name from the code, never input).
        let name: String
        /// The element type of the column's array parameter; `nil` for a column written by SQL.
        let element: PostgresDataType?
        /// The array parameter's type in SQL (`bigint[]`), or the SQL that writes the column.
        let sql: String
        /// SQL applied to the unnested value (`::text[]`), or empty.
        let conversion: String

        /// A `bigint` column, bound as `Int64?`.
        static func int8(_ name: String) -> Column {
            Column(name: name, element: .int8, sql: "bigint[]", conversion: "")
        }
        /// An `integer` column, bound as `Int32?`.
        static func int4(_ name: String) -> Column {
            Column(name: name, element: .int4, sql: "integer[]", conversion: "")
        }
        /// A `text` column, bound as `String?`.
        static func text(_ name: String) -> Column { Column(name: name, element: .text, sql: "text[]", conversion: "") }
        /// A `uuid` column, bound as `UUID?`.
        static func uuid(_ name: String) -> Column { Column(name: name, element: .uuid, sql: "uuid[]", conversion: "") }
        /// A `bytea` column, bound as bytes.
        static func bytea(_ name: String) -> Column {
            Column(name: name, element: .bytea, sql: "bytea[]", conversion: "")
        }
        /// A `text[]` column, bound as `[String]?`: PostgreSQL's arrays are rectangular, so each
        /// row's array travels as its literal (`{"a","b"}`) and is cast back.
        static func textArray(_ name: String) -> Column {
            Column(name: name, element: .text, sql: "text[]", conversion: "::text[]")
        }
        /// A column every row gets from `sql` (`now()`), not bound.
        static func sql(_ name: String, _ sql: String) -> Column {
            Column(name: name, element: nil, sql: sql, conversion: "")
        }
    }

    /// The statement, the same for every batch.
    let statement: String
    /// The columns, in the table's order as given.
    let columns: [Column]

    /// An insert into `table` of `columns`, with `suffix` (`ON CONFLICT …`) after the rows.
    init(table: String, columns: [Column], suffix: String = "") {
        self.columns = columns
        var selected: [String] = []
        var parameters: [String] = []
        var aliases: [String] = []
        for column in columns {
            if column.element == nil {
                selected.append(column.sql)
            } else {
                parameters.append("$\(parameters.count + 1)::\(column.sql)")
                aliases.append(column.name)
                selected.append("u.\(column.name)\(column.conversion)")
            }
        }
        var statement = "INSERT INTO \(table) (\(columns.map(\.name).joined(separator: ", ")))"
        statement += " SELECT \(selected.joined(separator: ", "))"
        statement += " FROM unnest(\(parameters.joined(separator: ", "))) AS u(\(aliases.joined(separator: ", ")))"
        if !suffix.isEmpty { statement += " " + suffix }
        self.statement = statement
    }

    /// Inserts `rows` on `connection` in one statement (none when `rows` is empty), `bind`
    /// appending each row's bound values in the columns' order.
    func run<Row>(
        _ rows: some Collection<Row>, on connection: PostgresConnection, logger: Logger,
        bind: (Row, inout Values) throws -> Void
    ) async throws {
        guard !rows.isEmpty else { return }
        var values = Values(columns.compactMap(\.element), rows: rows.count)
        for row in rows {
            try bind(row, &values)
            values.endRow()
        }
        var binds = PostgresBindings(capacity: values.arrays.count)
        for array in values.arrays { binds.append(array) }
        try await connection.query(PostgresQuery(unsafeSQL: statement, binds: binds), logger: logger)
    }

    /// One row's values at a time, each appended to its column's array.
    struct Values {
        fileprivate var arrays: [PostgresColumnArray]
        private var column = 0

        fileprivate init(_ elements: [PostgresDataType], rows: Int) {
            arrays = elements.map { PostgresColumnArray(element: $0, capacity: rows) }
        }

        /// The next column's value, `nil` for SQL's NULL.
        mutating func append<Value: PostgresEncodable>(_ value: Value?) throws {
            precondition(column < arrays.count, "a row of more values than the insert binds columns")
            precondition(
                value == nil || Value.psqlType == arrays[column].element,
                "a \(Value.psqlType) value for the \(arrays[column].element) column \(column)")
            try arrays[column].append(value)
            column += 1
        }

        /// The next column's `text[]` value (a ``Column/textArray(_:)``), `nil` for NULL.
        mutating func append(textArray value: [String]?) throws {
            try append(value.map(Self.arrayLiteral))
        }

        /// The next column's bytes (a ``Column/bytea(_:)``).
        mutating func append(bytes: some Sequence<UInt8>) throws {
            try append(ByteBuffer(bytes: bytes))
        }

        fileprivate mutating func endRow() {
            precondition(column == arrays.count, "a row of \(column) values for \(arrays.count) bound columns")
            column = 0
        }

        /// PostgreSQL's literal of a one-dimensional `text[]`: every element quoted, `"` and `\`
        /// escaped with a backslash, so any text reads back as itself.
        static func arrayLiteral(_ elements: [String]) -> String {
            var literal = "{"
            for (index, element) in elements.enumerated() {
                if index > 0 { literal += "," }
                literal += "\""
                for character in element.unicodeScalars {
                    if character == "\"" || character == "\\" { literal.unicodeScalars.append("\\") }
                    literal.unicodeScalars.append(character)
                }
                literal += "\""
            }
            return literal + "}"
        }
    }
}
