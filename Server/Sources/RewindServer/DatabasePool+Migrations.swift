import Logging

extension DatabasePool {
    /// How many times the start-up migrations are begun: the first time, and again after each
    /// outage that ended an attempt.
    static let migrationAttempts = 5

    /// Applies the migrations the database has not had (``Migrations/apply(_:to:logger:)``, one
    /// transaction). When the database goes away under them (a connection closed, the pool
    /// replaced at an outage, see ``DatabasePool``), PostgreSQL rolls the transaction back and they
    /// are applied again once the database answers, up to ``migrationAttempts`` times; then, or on
    /// any other error, the error is thrown. Waits for the database's return, never for a clock;
    /// returns (throwing) at once when the caller is cancelled.
    func applyMigrations(logger: Logger) async throws {
        var attempt = 1
        while true {
            do {
                try await withClient { client in _ = try await Migrations.apply(to: client, logger: logger) }
                return
            } catch  where attempt < Self.migrationAttempts && !Task.isCancelled && isDatabaseOutage(error) {
                logger.notice(
                    "the database went away during the schema migrations (rolled back): applying them again once it answers",
                    metadata: [
                        "attempt": "\(attempt)", "error": "\(String(reflecting: error))",
                    ])
                await availability.untilAvailable()
                attempt += 1
            }
        }
    }
}
