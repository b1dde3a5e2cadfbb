import BenchmarkSupport
import Foundation
import GRDB
import Rewind
import Synchronization

/// What a Swift developer would build instead: the same transition log in SQLite through GRDB
/// (a `DatabasePool`, WAL), one table with the record's columns and an index per session, at
/// `synchronous = FULL` (``BaselineConfiguration/grdbFull``: the WAL synced at every commit, the
/// durability of Rewind's `.durable`), GRDB's own `NORMAL` (``BaselineConfiguration/grdbNormal``,
/// against `.lastCommitMayRollBack`) or `OFF` (``BaselineConfiguration/grdbOff``, against `.noSync`).
///
/// FULL is set on the writer connection after the pool is open: GRDB 7.10.0's `DatabasePool.init`
/// runs `setUpWALMode()` after the configuration's `prepareDatabase`, and that executes
/// `PRAGMA synchronous = NORMAL`, so a FULL set in `prepareDatabase` does not hold. The set-up
/// then reads both pragmas back on the writer (``BaselineConfiguration/verify(pool:)``).
final class GRDBLog: Sendable {
    let directory: ScratchDirectory
    let pool: DatabasePool
    /// The durability this log was opened with and checked against.
    let configuration: BaselineConfiguration
    private let sample: TransitionRecord
    private let source: String
    private let target: String
    private let navigation: Data
    /// The last version written (versions are unique per log, so concurrent writers never
    /// collide on the `(session, version)` index).
    private let version = Atomic<Int64>(0)

    init(sample: TransitionRecord, configuration: BaselineConfiguration) throws {
        directory = try ScratchDirectory("grdb")
        self.configuration = configuration
        pool = try DatabasePool(path: directory.path + "/log.sqlite")
        // After the pool's own set-up (see above), on the one connection that writes.
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(configuration.synchronousLevel)")
        }
        try configuration.verify(pool: pool)
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE transition (
                        sequence INTEGER PRIMARY KEY,
                        session TEXT NOT NULL,
                        version INTEGER NOT NULL,
                        timestamp INTEGER NOT NULL,
                        machine TEXT NOT NULL,
                        definition TEXT NOT NULL,
                        event TEXT NOT NULL,
                        source TEXT NOT NULL,
                        target TEXT NOT NULL,
                        navigation BLOB NOT NULL,
                        payload BLOB NOT NULL,
                        stateData BLOB NOT NULL);
                    CREATE UNIQUE INDEX transition_session ON transition(session, version);
                    """)
        }
        self.sample = sample
        source = sample.source.joined(separator: "\u{1F}")
        target = sample.target.joined(separator: "\u{1F}")
        navigation = try JSONEncoder().encode(sample.navigation)
    }

    /// `rows` rows appended, `batch` per transaction (the last one may hold fewer).
    func append(rows: Int, batch: Int) throws {
        var remaining = rows
        while remaining > 0 {
            let count = min(batch, remaining)
            try append(count: count)
            remaining -= count
        }
    }

    /// One transaction appending `count` rows (committed, and synced at FULL).
    func append(count: Int) throws {
        try pool.write { db in try insert(count, into: db) }
    }

    /// `rows` rows appended by `writers` concurrent tasks, each committing its own transaction of
    /// one row at a time with GRDB's async `write` (what an app with one task per session writes):
    /// SQLite serializes the writers, and at FULL every commit syncs on its own.
    func appendConcurrently(rows: Int, writers: Int) async throws {
        let tickets = Tickets(limit: rows)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<writers {
                group.addTask {
                    while tickets.take() {
                        try await self.pool.write { db in try self.insert(1, into: db) }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    private func insert(_ count: Int, into db: GRDB.Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO transition (session, version, timestamp, machine, definition, event, source, target,
                    navigation, payload, stateData) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for _ in 0..<count {
            let next = self.version.wrappingAdd(1, ordering: .relaxed).newValue
            try statement.execute(arguments: [
                sample.session.rawValue, next, sample.timestamp.microsecondsSince1970, sample.machine,
                sample.definition, sample.event, source, target, navigation, Data(sample.payload),
                Data(sample.stateData),
            ])
        }
    }

    /// Checks the pragmas again (nothing during the run may have changed them), then closes.
    func close() throws {
        defer { directory.remove() }
        try configuration.verify(pool: pool)
        try pool.close()
    }
}
