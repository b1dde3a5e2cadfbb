import CLMDB

/// How an ``Environment`` is opened: its map size and growth bound, its limits and its durability.
public struct EnvironmentConfiguration: Sendable, Hashable {
    /// The initial map size in bytes (the most the data file can grow to before the map grows).
    /// It is rounded by LMDB to whole pages. Default: 1 MiB.
    ///
    /// With ``EnvironmentOptions/writeMap`` the data file is as long as the map and the whole map
    /// is reserved on disk, so this is also the least a new environment's file holds; an existing
    /// file is mapped whole (its map is never smaller than the file).
    public var mapSize: Int
    /// The most the map grows by at a time, in bytes: a write that fills the map doubles it while
    /// it is smaller than this, and adds this much once it is larger, so the space reserved beyond
    /// what is in use stays below it (plus what the write that filled the map needed). A
    /// compaction (``Environment/compact(headroom:progress:)``) leaves the map at the pages in use
    /// plus this much. Default: 4 MiB.
    public var mapHeadroom: Int
    /// The hard upper bound for automatic map growth, in bytes. A write that still does not fit
    /// once the map has this size fails with `MDB_MAP_FULL` instead of growing. Default: 1 TiB.
    public var maximumMapSize: Int
    /// The maximum number of named databases. Default: 16.
    public var maxDatabases: Int
    /// The maximum number of concurrent read transactions (LMDB's reader table). Default: 126.
    public var maxReaders: Int
    /// Durability and access options. Default: none, which is durable (every commit synced).
    public var options: EnvironmentOptions
    /// The permission bits of created files. Default: `0o644`.
    public var fileMode: UInt32

    /// Creates a configuration; every argument has a durable, conservative default.
    public init(
        mapSize: Int = 1 << 20,
        mapHeadroom: Int = 4 << 20,
        maximumMapSize: Int = 1 << 40,
        maxDatabases: Int = 16,
        maxReaders: Int = 126,
        options: EnvironmentOptions = [],
        fileMode: UInt32 = 0o644
    ) {
        self.mapSize = mapSize
        self.mapHeadroom = max(mapHeadroom, 0)
        self.maximumMapSize = max(maximumMapSize, mapSize)
        self.maxDatabases = maxDatabases
        self.maxReaders = maxReaders
        self.options = options
        self.fileMode = fileMode
    }
}

/// Options of an ``Environment``; the empty set is durable and read-write.
public struct EnvironmentOptions: OptionSet, Sendable, Hashable {
    /// The raw option bits (this layer's own, not LMDB's flags).
    public let rawValue: UInt32

    /// Creates options from raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `MDB_NOSYNC`: commits do not flush to disk. A killed process loses nothing (its writes are
    /// in the OS's page cache), but an OS crash or power loss may lose the last transactions **or
    /// corrupt the database**: nothing orders the meta page after the data pages it names (LMDB
    /// promises integrity only without ``writeMap`` on a file system that keeps write order).
    /// Call ``Environment/sync(force:)`` to flush. Wins over ``noMetaSync`` when both are set.
    public static let noSync = EnvironmentOptions(rawValue: 1 << 0)
    /// `MDB_NOMETASYNC`: a commit flushes its data pages (one `fdatasync`, or `msync` of the map
    /// with ``writeMap``) and writes the meta page without flushing it; the next commit's data
    /// flush (or ``Environment/sync(force:)``, or the OS's own writeback) takes it to disk. A
    /// killed process loses nothing; an OS crash or power loss may undo the last committed
    /// transaction, never more and never corrupting the database (the meta page reaches the disk
    /// only after the data it names, and LMDB keeps the previous transaction's pages until the
    /// one after next).
    public static let noMetaSync = EnvironmentOptions(rawValue: 1 << 1)
    /// `MDB_RDONLY`: open read-only; write transactions fail (``LMDBError/Code/readOnly``).
    ///
    /// A read-only open creates and changes nothing: the data file must exist and hold its meta
    /// pages (else ``DataFileError``), the map is never reserved or grown, and no lock file is
    /// created. When the directory's lock file (`lock.mdb`) exists and can be written, reads take
    /// part in LMDB's locking, so a process writing at the same time never reuses the pages they
    /// read. Without one (read-only media, read-only files, or no lock file) they read lock-free
    /// (`MDB_NOLOCK`): correct while nobody writes the environment (nobody can on read-only
    /// media; with read-only files only a user who can write them could).
    public static let readOnly = EnvironmentOptions(rawValue: 1 << 2)
    /// `MDB_NORDAHEAD`: turn off OS read-ahead (helps random reads on databases larger than RAM).
    public static let noReadAhead = EnvironmentOptions(rawValue: 1 << 3)

    /// `MDB_WRITEMAP`: write transactions change the memory map directly instead of copying each
    /// dirty page into a malloc'd buffer and writing it with `pwrite` at commit. A durable commit
    /// is then an `msync` of the map followed by the meta page and its `msync` — the same order,
    /// and the same crash safety, as without it (uncommitted pages that reach the disk early are
    /// free pages no meta page refers to); with ``noSync`` a commit makes no system call at all.
    /// What it gives up is LMDB's protection against the application writing into the map through
    /// a stray pointer. LMDB asks that every process of one environment use the same setting.
    ///
    /// The data file is the map's size, and **the whole map is reserved on disk**
    /// (`posix_fallocate`) when the environment opens and before the map grows: a write into a
    /// sparse hole that a full disk cannot fill would crash the process (`SIGBUS`), while a failed
    /// reservation fails the write that needed the growth with `ENOSPC`. When the disk has no room
    /// for the map at open, the environment is opened without a writable map. The map is opened,
    /// grown and adopted from other processes at no less than the data file's size (whatever
    /// ``EnvironmentConfiguration/mapSize`` says), because LMDB sizes the file to the map: a
    /// smaller map would shrink the file under a process whose map had grown, and its writes past
    /// the new end would crash it (`SIGBUS`).
    /// Linux only (where blocks can be reserved); ignored elsewhere and with ``readOnly``.
    public static let writeMap = EnvironmentOptions(rawValue: 1 << 4)

    /// Check, before LMDB opens the data file, every page it could read: LMDB trusts its pages,
    /// and a damaged one (a disk error, a stray write) makes it read outside its map and crash the
    /// process. The pages of both meta pages' trees are read with `pread` and their headers,
    /// bounds, nodes, keys' order and child page numbers checked; the first damaged page throws
    /// ``DamagedPageError``. It reads every page in use once, so its cost grows with the file:
    /// for tools opening a store that may be damaged, not for an app's every launch. Damage that
    /// keeps the pages' structure (a changed byte in a value) is not found.
    public static let checkPages = EnvironmentOptions(rawValue: 1 << 5)
    /// Refuse a data file that exists but is empty (or whose meta pages are zeros) instead of
    /// making it a new environment: ``DataFileError``, as ``readOnly`` does. A missing data file is
    /// still created. For tools that must not take over a file that was emptied; two processes
    /// creating one environment at the same instant may see each other's blank file and refuse.
    public static let refuseBlankDataFile = EnvironmentOptions(rawValue: 1 << 6)

    /// The options that say when commits flush (``noSync``, ``noMetaSync``); none of them is a
    /// durable commit (data flushed, then the meta page).
    public static let syncOptions: EnvironmentOptions = [.noSync, .noMetaSync]

    /// `MDB_NOLOCK` — internal: inspection of a directory without creating its lock file.
    static let noLock = EnvironmentOptions(rawValue: 1 << 16)

    /// The `mdb_env_open` flags for these options; `MDB_NOTLS` is always set because Swift tasks
    /// move between threads, so read transactions must not be tied to a thread.
    var lmdbFlags: UInt32 {
        var flags = UInt32(MDB_NOTLS)
        if contains(.noSync) { flags |= UInt32(MDB_NOSYNC) }
        if contains(.noMetaSync) { flags |= UInt32(MDB_NOMETASYNC) }
        if contains(.readOnly) { flags |= UInt32(MDB_RDONLY) }
        if contains(.noReadAhead) { flags |= UInt32(MDB_NORDAHEAD) }
        if contains(.writeMap) && !contains(.readOnly) { flags |= UInt32(MDB_WRITEMAP) }
        if contains(.noLock) { flags |= UInt32(MDB_NOLOCK) }
        return flags
    }
}

/// How often an environment's commits flush, weakest first: the order in which handles of one
/// directory asking for different levels are reconciled (the strongest wins).
enum SyncLevel: Int, Comparable, Sendable {
    /// `MDB_NOSYNC`: no flush.
    case none
    /// `MDB_NOMETASYNC`: the data pages are flushed, the meta page is not.
    case data
    /// Neither option: data pages flushed, then the meta page flushed.
    case full

    /// The level `options` ask for (``EnvironmentOptions/noSync`` wins over
    /// ``EnvironmentOptions/noMetaSync``, as in LMDB).
    init(_ options: EnvironmentOptions) {
        if options.contains(.noSync) {
            self = .none
        } else if options.contains(.noMetaSync) {
            self = .data
        } else {
            self = .full
        }
    }

    /// The LMDB flags of this level.
    var lmdbFlags: UInt32 {
        switch self {
        case .none: UInt32(MDB_NOSYNC)
        case .data: UInt32(MDB_NOMETASYNC)
        case .full: 0
        }
    }

    /// The options of this level.
    var options: EnvironmentOptions {
        switch self {
        case .none: .noSync
        case .data: .noMetaSync
        case .full: []
        }
    }

    static func < (lhs: SyncLevel, rhs: SyncLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
