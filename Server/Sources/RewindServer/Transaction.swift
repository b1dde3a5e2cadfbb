import Logging
import NIOCore
import PostgresNIO
import Synchronization

extension PostgresClient {
    /// Runs `body` in a transaction on a leased connection: committed when it returns, rolled
    /// back when it throws. Unlike `withTransaction`, the error `body` threw comes out as itself
    /// (an ``APIError`` stays an answer) when the rollback succeeded.
    ///
    /// When the connection closes before the transaction ends (PostgreSQL restarted or gone), it
    /// throws ``DatabaseConnectionLost`` at once rather than waiting for the statement in flight:
    /// postgres-nio (1.33) drops a statement written to a connection whose channel has closed
    /// without ever answering it, so the `ROLLBACK` after a statement that failed because the
    /// server went away, or the next statement of `body`, would otherwise wait forever (and hold
    /// a request, or the server's graceful shutdown, with it). PostgreSQL rolls back the
    /// transaction of a connection that ends.
    func transaction<Result: Sendable>(
        logger: Logger, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await withConnection { connection in
                try await connection.untilClosed {
                    try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
                }
            }
        } catch let error as PostgresTransactionError {
            if let closureError = error.closureError, error.rollbackError == nil { throw closureError }
            throw error
        }
    }
}

/// The database connection closed while a transaction was in progress; PostgreSQL rolled it back.
struct DatabaseConnectionLost: Error, CustomStringConvertible {
    /// A sentence for logs.
    var description: String { "the database connection closed during a transaction (rolled back)" }
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
/// (registered when a transaction first runs on it), calling the handlers of the transactions in
/// progress on it. (A callback per transaction would pile up on a connection that lives long.)
private final class ClosingConnections: Sendable {
    static let shared = ClosingConnections()

    /// A handler's place, to remove it when its transaction ends.
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
