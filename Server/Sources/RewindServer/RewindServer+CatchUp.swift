import Logging
import PostgresNIO

extension RewindServer {
    /// Folds every store's records past its projections' checkpoints into the projection states,
    /// now, on `client`'s database: the pass the server's catch-up service runs after ingestion
    /// (and at start), with the same code, transactions and checkpoint locks, so it may run while
    /// servers are up (each store's records are folded once).
    ///
    /// For administration and measurement (the benchmark suite's catch-up rate); a running server
    /// needs no call.
    ///
    /// - Returns: How many records were read (each record once per pass, whatever the number of
    ///   projections behind on it).
    @discardableResult
    public static func catchUpProjections(on client: PostgresClient, logger: Logger) async throws -> Int64 {
        let catchUp = ProjectionCatchUp(database: DatabasePool(fixed: client), logger: logger)
        catchUp.wake()
        return try await catchUp.catchUpAll()
    }
}
