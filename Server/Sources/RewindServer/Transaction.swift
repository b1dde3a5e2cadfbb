import Logging
import PostgresNIO

extension PostgresClient {
    /// Runs `body` in a transaction on a leased connection: committed when it returns, rolled
    /// back when it throws. Unlike `withTransaction`, the error `body` threw comes out as itself
    /// (an ``APIError`` stays an answer) when the rollback succeeded.
    func transaction<Result: Sendable>(
        logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError {
            if let closureError = error.closureError, error.rollbackError == nil { throw closureError }
            throw error
        }
    }
}
