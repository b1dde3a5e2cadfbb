import Foundation
import GRDB
import Rewind

/// What a Swift developer would build instead: the same transition log in SQLite through GRDB
/// (WAL, `synchronous = FULL`), one table with the record's columns and an index per session.
final class GRDBLog {
    let directory: ScratchDirectory
    let pool: DatabasePool
    private let sample: TransitionRecord
    private let source: String
    private let target: String
    private let navigation: Data
    private var version: Int64 = 0

    init(sample: TransitionRecord) throws {
        directory = try ScratchDirectory("grdb")
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        pool = try DatabasePool(path: directory.path + "/log.sqlite", configuration: configuration)
        try pool.write { db in
            try db.execute(sql: """
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

    /// One transaction appending `count` rows (committed, and synced by the WAL's FULL mode).
    func append(count: Int) throws {
        try pool.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO transition (session, version, timestamp, machine, definition, event, source, target,
                    navigation, payload, stateData) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for _ in 0..<count {
                version += 1
                try statement.execute(arguments: [
                    sample.session.rawValue, version, sample.timestamp.microsecondsSince1970, sample.machine,
                    sample.definition, sample.event, source, target, navigation, Data(sample.payload),
                    Data(sample.stateData),
                ])
            }
        }
    }

    func close() throws {
        try pool.close()
        directory.remove()
    }
}
