import RewindLMDB

/// The store's on-disk layout: the named databases of its LMDB environment and the keys of its
/// metadata. See the module's documentation for key and value formats.
package enum StoreLayout {
    /// The store format this code writes and the newest it opens. Older stores are migrated
    /// when opened: format 1 (one `session-index` entry per version) to format 2 (blocks), format
    /// 2 (every append writes its session's entry) to format 3 (entries may lag the log by a
    /// bounded tail, see ``sessionsThroughKey``), format 3 to format 4 (the log may have erased
    /// ranges, see ``erasedRangePrefix``: nothing to change, a format 3 store has none; code that
    /// reads format 3 only would take an erased range for a damaged log, so it must refuse), format
    /// 4 to format 5 (a session entry may hold a base version, flags bit 1: its history was
    /// trimmed; nothing to change, a format 4 store has none; code that reads format 4 only would
    /// misread such an entry's fields and miss the trimmed index blocks, so it must refuse).
    public static let formatVersion: UInt32 = 5
    /// The oldest format a read-only open reads as it is (format 4 without erased ranges).
    public static let oldestReadableFormat: UInt32 = 3

    /// `log`: key 8-byte big-endian global sequence → encoded ``TransitionRecord``.
    public static let log = "log"
    /// `session-index`: key session id, NUL, 8-byte big-endian first version of a block →
    /// the 8-byte big-endian global sequences of that version and the next ones,
    /// ``indexBlockSize`` of them. A block is written once the session's head reaches its last
    /// version; the sequences of the versions after the last full block are in the session's
    /// `sessions` entry. (Format 1: one entry per version, key session id, NUL, version →
    /// sequence.)
    public static let sessionIndex = "session-index"
    /// `sessions`: key session id (UTF-8) → the session's ``SessionInfo`` and the sequences of
    /// its versions after its last full `session-index` block, as of the log's sequence
    /// ``sessionsThroughKey``: a session's records after that sequence advance its head beyond
    /// its entry (format 3).
    public static let sessions = "sessions"

    /// The number of versions one `session-index` entry holds. An append touches the index only
    /// when it completes a block, so a group commit of many sessions changes a few index pages
    /// instead of one per session.
    public static let indexBlockSize = 32

    /// Calls `body` with the value of a `session-index` block of `sequences`: each as 8
    /// big-endian bytes, made in one pass on the stack (appended 8 bytes at a time to a buffer, a
    /// block cost about 4,600 instructions, 144 a bulk record; callgrind, Benchmarks/HISTORY.md
    /// 2026-12-01).
    static func withIndexBlock<Result>(
        _ sequences: some Collection<UInt64>, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: sequences.count) { block in
            for (offset, sequence) in sequences.enumerated() {
                block.initializeElement(at: offset, to: sequence.bigEndian)
            }
            return try body(UnsafeRawBufferPointer(block))
        }
    }
    /// `meta`: the store's metadata (format version, store id, creation time).
    public static let meta = "meta"

    /// Meta key of the store format version (4 bytes big-endian).
    public static let formatVersionKey = Array("format-version".utf8)
    /// Meta key of the store id (16 bytes, a UUID).
    public static let storeIDKey = Array("store-id".utf8)
    /// Meta key of the creation time (8 bytes, Int64 little-endian µs since 1970).
    public static let createdKey = Array("created".utf8)
    /// Meta key of the sequence through which every `sessions` entry accounts for the log (8
    /// bytes big-endian; format 3). Appends leave entries behind the log and write them out, moving
    /// this mark to the log's end, once more than ``StoreConfiguration/maximumSessionTail`` records
    /// follow it; readers advance an entry by its session's records after the mark.
    public static let sessionsThroughKey = Array("sessions-through".utf8)

    /// Meta key of the store's secret (``secretLength`` random bytes, made when first needed):
    /// the key of erasure tombstones' and redaction's keyed hashes. Never exported or uploaded.
    public static let secretKey = Array("secret".utf8)
    /// The length of the store's secret in bytes.
    public static let secretLength = 32

    /// Prefix of the `meta` keys of erased ranges: `erased`, NUL, the first sequence of a range
    /// (8 bytes big-endian) → its last sequence (8 bytes big-endian). The log has no records at
    /// those sequences: they were erased (whole sessions, or history trimmed), and their numbers
    /// are never given again. Ranges do not overlap and adjacent ones are merged, so a gap-free
    /// check of the log reads "every sequence has a record or lies in one range".
    public static let erasedRangePrefix = Array("erased".utf8) + [0]
    /// Prefix of the `meta` keys of tombstones: `tombstone`, NUL, the HMAC-SHA-256 of an erased
    /// session's id under the store's secret (32 bytes) → when (Int64 little-endian µs since 1970)
    /// and why (1 byte, ``ErasureReason``). The id itself is not kept.
    public static let tombstonePrefix = Array("tombstone".utf8) + [0]
    /// Prefix of the `meta` keys of erasure notices for the fleet server: `erasure`, NUL, the
    /// notice's number (8 bytes big-endian) → kind (1 byte, ``ErasureNotice/Kind``), when (Int64
    /// little-endian µs), the count of ranges and each range's first and last sequence (LEB128
    /// varints). Sequences only, nothing of the sessions.
    public static let erasureNoticePrefix = Array("erasure".utf8) + [0]
    /// The `meta` key of the number of the newest erasure notice ever written (8 bytes
    /// big-endian): numbers keep growing after the acknowledged notices are removed, so a
    /// server that applied notice N never takes a later one for a notice it has.
    public static let lastErasureNoticeKey = Array("erasure-notice-last".utf8)

    /// Prefix of the `meta` keys of erasure checkpoints (`RewindSync`): `erasure-checkpoint`, NUL,
    /// the destination → the number of the last erasure notice it acknowledged (8 bytes
    /// big-endian). Notices every destination acknowledged are removed.
    public static let erasureCheckpointPrefix = Array("erasure-checkpoint".utf8) + [0]

    /// Prefix of the `meta` keys of upload checkpoints (`RewindSync`): `upload-checkpoint`, NUL,
    /// then the destination's name (its server URL); the value is the next global sequence the
    /// server acknowledged (8 bytes big-endian). Stores without one (any written before) upload
    /// from the server's position.
    public static let uploadCheckpointPrefix = Array("upload-checkpoint".utf8) + [0]

    /// Every database the store creates.
    public static var allDatabases: [String] {
        [log, sessionIndex, sessions, meta] + AuxiliaryDatabase.allCases.map(\.name)
    }

    /// The fewest named databases the environment is opened with (room for later databases).
    public static let minimumDatabases = 16
}

/// The opened handles of the store's databases.
struct StoreDatabases: Sendable {
    let log: Database
    let sessionIndex: Database
    let sessions: Database
    let meta: Database
    let auxiliary: [Database]  // indexed like AuxiliaryDatabase.allCases

    init(_ databases: [String: Database]) throws {
        func handle(_ name: String) throws -> Database {
            guard let database = databases[name] else {
                throw LMDBError(
                    code: LMDBError.Code.notFound, operation: "opening the store's databases",
                    message: "database '\(name)' was not opened")
            }
            return database
        }
        log = try handle(StoreLayout.log)
        sessionIndex = try handle(StoreLayout.sessionIndex)
        sessions = try handle(StoreLayout.sessions)
        meta = try handle(StoreLayout.meta)
        auxiliary = try AuxiliaryDatabase.allCases.map { try handle($0.name) }
    }

    @inline(__always)
    func handle(for database: AuxiliaryDatabase) -> Database {
        switch database {
        case .snapshots: return auxiliary[0]
        case .projections: return auxiliary[1]
        case .checkpoints: return auxiliary[2]
        case .definitions: return auxiliary[3]
        }
    }
}
