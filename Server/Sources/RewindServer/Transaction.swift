import Logging
import PostgresNIO

extension PostgresClient {
    /// Runs `body` in a transaction on a leased connection: committed when it returns, rolled
    /// back when it throws. Unlike `withTransaction`, the error `body` threw comes out as itself
    /// (an ``APIError`` stays an answer) when the rollback succeeded.
    ///
    /// When the connection closes before the transaction ends (PostgreSQL restarted or gone), it
    /// throws ``DatabaseConnectionLost`` at once (``withLiveConnection(_:)``): the `ROLLBACK` after
    /// a statement that failed because the server went away, or the next statement of `body`,
    /// would otherwise wait forever. PostgreSQL rolls back the transaction of a connection that
    /// ends.
    func transaction<Result: Sendable>(
        logger: Logger, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await withLiveConnection { connection in
                try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
            }
        } catch let error as PostgresTransactionError {
            if let closureError = error.closureError, error.rollbackError == nil { throw closureError }
            throw error
        }
    }
}
