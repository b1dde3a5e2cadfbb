import CLMDBBench
import GRDB
import Rewind

/// The durability each row of the suite claims, and the one place that checks a baseline is
/// configured as its row says. Every fixture calls ``check(_:)`` (through the `verify…` functions)
/// in its set-up, after the library under it has finished configuring itself: a default that
/// changes under a row (GRDB's `DatabasePool` resets `synchronous` to `NORMAL` after the
/// connection's `prepareDatabase`, for one) fails the run with a ``BaselineConfigurationError``
/// instead of silently measuring something weaker.
enum BaselineConfiguration: String, Sendable, CaseIterable {
    /// Rewind, `Durability.durable`: every commit synced before `send` returns.
    case rewindDurable
    /// Rewind, `Durability.lastCommitMayRollBack`: the data synced per commit, the meta page not
    /// (`MDB_NOMETASYNC`): an OS crash or power loss may undo the last commit, never corrupts.
    case rewindLastCommitMayRollBack
    /// Rewind, `Durability.noSync`: commits not synced (a crash of the OS may lose the last ones).
    case rewindNoSync
    /// Raw LMDB without `MDB_NOSYNC` / `MDB_NOMETASYNC`: data and meta page synced per commit.
    case rawLMDBSynced
    /// Raw LMDB with `MDB_NOMETASYNC`: the data synced per commit, the meta page not.
    case rawLMDBNoMetaSync
    /// Raw LMDB with `MDB_NOSYNC`: nothing synced.
    case rawLMDBNoSync
    /// GRDB `DatabasePool`, WAL, `synchronous = FULL`: the WAL synced at every commit.
    case grdbFull
    /// GRDB `DatabasePool`, WAL, `synchronous = NORMAL` (GRDB's default): survives an app crash,
    /// may lose the last commits on power loss (the WAL is synced only at checkpoints).
    case grdbNormal
    /// GRDB `DatabasePool`, WAL, `synchronous = OFF`: nothing synced, not even at checkpoints
    /// (an OS crash or power loss may lose commits and, SQLite warns, corrupt the database).
    case grdbOff

    /// The durability label of the row (`summarize.py` prints the same labels, keep them equal).
    var label: String {
        switch self {
        case .rewindDurable: "durable: synced per commit"
        case .rewindLastCommitMayRollBack: "data synced per commit: power loss may undo the last commit"
        case .rewindNoSync: "no sync: OS crash may lose last commits"
        case .rawLMDBSynced: "synced: data + meta per commit"
        case .rawLMDBNoMetaSync: "MDB_NOMETASYNC: data synced per commit, power loss may undo the last"
        case .rawLMDBNoSync: "MDB_NOSYNC: OS crash may lose last commits"
        case .grdbFull: "WAL FULL: synced per commit"
        case .grdbNormal: "WAL NORMAL: app crash safe, power loss may lose last commits"
        case .grdbOff: "WAL OFF: app crash safe, OS crash may lose commits or corrupt"
        }
    }

    /// Fails unless `observed` (read back from the running baseline) is what the row claims.
    func check(_ condition: Bool, _ observed: @autoclosure () -> String) throws {
        // The setting read back is printed in every run, so a ratio can be checked against what
        // its baseline was really configured as.
        if condition { print("baseline check: \(rawValue) (\(label)): \(observed())") }
        guard condition else {
            let error = BaselineConfigurationError(configuration: self, observed: observed())
            // Loud on purpose: the benchmark tool would report a failed set-up, but a run
            // that keeps going must not be read as if this row were measured.
            print("BASELINE CONFIGURATION CHECK FAILED: \(error)")
            throw error
        }
    }

    /// The Rewind row of an engine at `durability`.
    static func rewind(_ durability: Durability) -> BaselineConfiguration {
        switch durability {
        case .durable: .rewindDurable
        case .lastCommitMayRollBack: .rewindLastCommitMayRollBack
        case .noSync: .rewindNoSync
        }
    }

    /// Checks an engine's configured durability, and the level its commits actually get
    /// (`effectiveDurability`: another engine of the process on the directory could raise it),
    /// against this row.
    func verify(engine: Engine) throws {
        let configured = engine.configuration.durability
        let effective = try engine.effectiveDurability
        let description = "engine durability \(configured), effective \(effective)"
        switch self {
        case .rewindDurable, .rewindLastCommitMayRollBack, .rewindNoSync:
            try check(Self.rewind(configured) == self && Self.rewind(effective) == self, description)
        default: try check(false, "an engine checked against a non-engine row")
        }
    }

    /// Checks a raw LMDB environment's flags (`mdb_env_get_flags`) against this row: `MDB_NOSYNC`
    /// set exactly for ``rawLMDBNoSync``, `MDB_NOMETASYNC` exactly for ``rawLMDBNoMetaSync``,
    /// `MDB_WRITEMAP` as asked.
    func verify(environment: OpaquePointer?, writeMap: Bool) throws {
        var flags: UInt32 = 0
        let code = mdb_env_get_flags(environment, &flags)
        if code != 0 { try check(false, "mdb_env_get_flags failed (\(code))") }
        let noSync = flags & UInt32(MDB_NOSYNC) != 0
        let noMetaSync = flags & UInt32(MDB_NOMETASYNC) != 0
        let hasWriteMap = flags & UInt32(MDB_WRITEMAP) != 0
        let description = "MDB_NOSYNC \(noSync), MDB_NOMETASYNC \(noMetaSync), MDB_WRITEMAP \(hasWriteMap)"
        switch self {
        case .rawLMDBSynced: try check(!noSync && !noMetaSync && hasWriteMap == writeMap, description)
        case .rawLMDBNoMetaSync: try check(!noSync && noMetaSync && hasWriteMap == writeMap, description)
        case .rawLMDBNoSync: try check(noSync && !noMetaSync && hasWriteMap == writeMap, description)
        default: try check(false, "a raw LMDB environment checked against a non-LMDB row")
        }
    }

    /// The `PRAGMA synchronous` level of a GRDB row.
    var synchronousLevel: String {
        switch self {
        case .grdbFull: "FULL"
        case .grdbOff: "OFF"
        default: "NORMAL"
        }
    }

    /// Checks, on the connection that writes, that the database is in WAL mode with this row's
    /// `synchronous` level (2 = FULL, 1 = NORMAL, 0 = OFF).
    func verify(pool: DatabasePool) throws {
        let (journalMode, synchronous) = try pool.write { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
        }
        let description = "journal_mode \(journalMode ?? "nil"), synchronous \(synchronous.map(String.init) ?? "nil")"
        switch self {
        case .grdbFull: try check(journalMode == "wal" && synchronous == 2, description)
        case .grdbNormal: try check(journalMode == "wal" && synchronous == 1, description)
        case .grdbOff: try check(journalMode == "wal" && synchronous == 0, description)
        default: try check(false, "a GRDB pool checked against a non-GRDB row")
        }
    }
}

/// A baseline is not configured as its row says: the run must not report it.
struct BaselineConfigurationError: Error, CustomStringConvertible {
    let configuration: BaselineConfiguration
    let observed: String
    var description: String {
        "baseline \(configuration.rawValue) claims \"\(configuration.label)\" but reads back \(observed)"
    }
}
