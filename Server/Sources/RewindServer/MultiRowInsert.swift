import Logging
import PostgresNIO

/// An `INSERT` of many rows in few statements, every value a bound parameter: the rows are sent
/// in chunks of at most ``rowsPerStatement`` (PostgreSQL takes at most 65,535 parameters per
/// statement), each one statement `INSERT INTO table (columns) VALUES ($1, …), (…) suffix`.
///
/// Used where a transaction writes a batch's rows (records, session heads, projection states):
/// one round trip per chunk instead of one per row.
struct MultiRowInsert {
    /// `INSERT INTO table (columns) VALUES`, as written by the caller (names from the code, never input).
    let head: String
    /// Bound values per row.
    let boundColumns: Int
    /// SQL appended to each row after its bound values (`, now()`), or empty.
    let rowSuffix: String
    /// SQL after the rows (`ON CONFLICT …`), or empty.
    let suffix: String
    /// Rows per statement.
    let rowsPerStatement: Int

    /// An insert into `table` of `columns`: the first `boundColumns` of them bound per row, the
    /// rest written by `rowSuffix`.
    init(
        table: String, columns: [String], boundColumns: Int? = nil, rowSuffix: String = "", suffix: String = "",
        rowsPerStatement: Int = 500
    ) {
        self.head = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES"
        self.boundColumns = boundColumns ?? columns.count
        self.rowSuffix = rowSuffix
        self.suffix = suffix
        self.rowsPerStatement = min(rowsPerStatement, 65_535 / max(1, self.boundColumns))
    }

    /// Inserts `rows` on `connection`, `bind` appending each row's ``boundColumns`` values.
    func run<Row>(
        _ rows: some Collection<Row>, on connection: PostgresConnection, logger: Logger,
        bind: (Row, inout PostgresBindings) -> Void
    ) async throws {
        var rest = rows[...]
        while !rest.isEmpty {
            let chunk = rest.prefix(rowsPerStatement)
            rest = rest.dropFirst(chunk.count)
            var sql = head
            var binds = PostgresBindings(capacity: chunk.count * boundColumns)
            for (row, value) in chunk.enumerated() {
                let base = row * boundColumns
                sql += row == 0 ? " (" : ", ("
                sql += (1...boundColumns).map { "$\(base + $0)" }.joined(separator: ", ")
                sql += rowSuffix + ")"
                bind(value, &binds)
            }
            if !suffix.isEmpty { sql += " " + suffix }
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        }
    }
}
