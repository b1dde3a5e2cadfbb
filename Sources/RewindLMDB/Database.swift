import CLMDB

/// A handle to a database (LMDB's `MDB_dbi`) of an ``Environment``: the unnamed main database or a
/// named one. Obtain it with ``Environment/database(named:create:)``; it stays valid while the
/// environment is open and can be used in any transaction of that environment.
public struct Database: Sendable, Hashable, CustomStringConvertible {
    /// The database's name, or `nil` for the main database.
    public let name: String?
    /// LMDB's handle.
    let handle: MDB_dbi
    /// The serial number of the environment the handle belongs to.
    let environmentSerial: UInt64

    init(name: String?, handle: MDB_dbi, environmentSerial: UInt64) {
        self.name = name
        self.handle = handle
        self.environmentSerial = environmentSerial
    }

    /// `'name'`, or `main` for the main database.
    public var description: String { name.map { "'\($0)'" } ?? "main" }
}

/// Flags of a put in a ``WriteTransaction``.
public struct PutFlags: OptionSet, Sendable, Hashable {
    /// The raw `mdb_put` flags.
    public let rawValue: UInt32

    /// Creates flags from raw `mdb_put` flag bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `MDB_NOOVERWRITE`: fail with `MDB_KEYEXIST` if the key already exists.
    public static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))
    /// `MDB_APPEND`: the key is greater than every key in the database (fast bulk loading); fails
    /// with `MDB_KEYEXIST` otherwise.
    public static let append = PutFlags(rawValue: UInt32(MDB_APPEND))
}

/// The direction of a range iteration.
public enum IterationDirection: Sendable, Hashable {
    /// Ascending key order.
    case forward
    /// Descending key order.
    case backward
}

/// What an iteration closure asks for next.
public enum IterationControl: Sendable, Hashable {
    /// Go on with the next entry.
    case next
    /// Stop the iteration.
    case stop
}

/// Statistics of one database (`mdb_stat`).
public struct DatabaseStatistics: Sendable, Hashable {
    /// The page size in bytes.
    public let pageSize: Int
    /// The depth of the B-tree.
    public let depth: Int
    /// The number of internal pages.
    public let branchPages: Int
    /// The number of leaf pages.
    public let leafPages: Int
    /// The number of overflow pages (values too large for a leaf page).
    public let overflowPages: Int
    /// The number of entries.
    public let entries: Int

    init(_ stat: MDB_stat) {
        pageSize = Int(stat.ms_psize)
        depth = Int(stat.ms_depth)
        branchPages = Int(stat.ms_branch_pages)
        leafPages = Int(stat.ms_leaf_pages)
        overflowPages = Int(stat.ms_overflow_pages)
        entries = Int(stat.ms_entries)
    }
}

/// Statistics of an environment (`mdb_env_info` and `mdb_env_stat`).
public struct EnvironmentStatistics: Sendable, Hashable {
    /// The current map size in bytes.
    public let mapSize: Int
    /// The page size in bytes.
    public let pageSize: Int
    /// The number of pages in use in the data file (last used page + 1).
    public let usedPages: Int
    /// The number of entries in the main database (one per named database).
    public let entries: Int
    /// The id of the last committed transaction.
    public let lastTransactionID: Int
    /// The size of the reader table.
    public let maxReaders: Int
    /// The number of reader slots in use.
    public let readersInUse: Int
}
