import Logging
import PostgresNIO
import Synchronization

/// The database connection closed while a statement was in progress (PostgreSQL rolled back the
/// transaction it was part of, if any).
struct DatabaseConnectionLost: Error, CustomStringConvertible {
    /// A sentence for logs.
    var description: String {
        "the database connection closed while a statement was in progress (its transaction, if any, rolled back)"
    }
}

extension PostgresClient {
    /// Runs `body` on a leased connection, and throws ``DatabaseConnectionLost`` as soon as that
    /// connection closes before `body` ends (PostgreSQL restarted or gone), rather than waiting for
    /// the statement in flight: postgres-nio (1.33) drops a statement written to a connection whose
    /// channel has closed without ever answering it, so a statement that lost the race with the
    /// closing would hold its request, and the server's graceful shutdown with it, for ever.
    ///
    /// Every statement of the server runs this way: in a ``transaction(logger:_:)``, or alone
    /// through ``rows(_:logger:)``.
    func withLiveConnection<R: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> R
    ) async throws -> R {
        try await withConnection { connection in
            try await connection.untilClosed { try await body(connection) }
        }
    }

    /// The rows `query` returns, read to the end on a leased connection
    /// (``withLiveConnection(_:)``: ``DatabaseConnectionLost`` when it closes first).
    ///
    /// For the server's statements outside transactions, whose answers are a bounded page or a
    /// handful of rows: they are all held at once.
    @discardableResult
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await withLiveConnection { connection in try await connection.query(query, logger: logger).collect() }
    }
}

extension Array where Element == PostgresRow {
    /// Each row's columns as `columns` (a tuple of the row's column types, in order).
    /// - Throws: postgres-nio's `PostgresDecodingError` for the first cell that does not decode.
    func decode<each Column: PostgresDecodable>(
        _ columns: (repeat each Column).Type, file: String = #fileID, line: Int = #line
    ) throws -> [(repeat each Column)] {
        try map { row in try row.decode(columns, file: file, line: line) }
    }

    /// Each row's one column as `column` (postgres-nio decodes a tuple of one apart).
    /// - Throws: postgres-nio's `PostgresDecodingError` for the first cell that does not decode.
    func decode<Column: PostgresDecodable>(
        _ column: Column.Type, file: String = #fileID, line: Int = #line
    ) throws -> [Column] {
        try map { row in try row.decode(column, file: file, line: line) }
    }
}

extension PostgresConnection {
    /// The result of `work`, or ``DatabaseConnectionLost`` as soon as the connection closes
    /// before `work` ends. `work` runs in a task of its own, cancelled when the caller is; a
    /// statement the closed connection dropped leaves that task waiting (postgres-nio never
    /// answers it), but nothing waits for it.
    func untilClosed<R: Sendable>(_ work: @escaping @Sendable () async throws -> R) async throws -> R {
        try await firstOutcome(of: work) { interrupt in
            let token = ClosingConnections.shared.onClose(of: self) { interrupt(DatabaseConnectionLost()) }
            return { ClosingConnections.shared.remove(token) }
        }
    }
}

/// What to do when each open connection closes: one callback on a connection's `closeFuture`
/// (registered when a statement first runs on it through `untilClosed`), calling the handlers of the
/// waits in progress on it. (A callback per wait would pile up on a connection that lives long.)
private final class ClosingConnections: Sendable {
    static let shared = ClosingConnections()

    /// A handler's place, to remove it when its wait ends.
    struct Token: Sendable {
        var connection: ObjectIdentifier
        var number: UInt64
    }

    private struct State {
        /// The handlers of each watched connection (watched: its `closeFuture` has our callback).
        var handlers: [ObjectIdentifier: [UInt64: @Sendable () -> Void]] = [:]
        var next: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Calls `handler` when `connection` closes (at once when it has), unless removed before.
    func onClose(of connection: PostgresConnection, _ handler: @escaping @Sendable () -> Void) -> Token {
        let key = ObjectIdentifier(connection)
        let (token, watch) = state.withLock { state in
            state.next += 1
            let watch = state.handlers[key] == nil
            state.handlers[key, default: [:]][state.next] = handler
            return (Token(connection: key, number: state.next), watch)
        }
        if watch {
            connection.closeFuture.whenComplete { [self] _ in closed(key) }
        }
        return token
    }

    /// Forgets the handler of `token`.
    func remove(_ token: Token) {
        state.withLock { state in _ = state.handlers[token.connection]?.removeValue(forKey: token.number) }
    }

    private func closed(_ key: ObjectIdentifier) {
        let handlers = state.withLock { state in state.handlers.removeValue(forKey: key) ?? [:] }
        for handler in handlers.values { handler() }
    }
}
