import CLMDB

/// An error reported by LMDB, or by this layer when it is used the wrong way.
///
/// Like GRDB's `DatabaseError`, it carries the raw result ``code`` (LMDB's `MDB_*` codes or an
/// `errno` value), LMDB's own ``message`` (`mdb_strerror`) and the ``operation`` that failed, so
/// that its ``description`` says what failed, on what, and why.
///
/// ```swift
/// do { try env.write { txn in try txn.put(value, forKey: key, in: db, flags: .noOverwrite) } }
/// catch let error as LMDBError where error.code == LMDBError.Code.keyExists { ... }
/// ```
public struct LMDBError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The result code: one of LMDB's `MDB_*` codes (see ``Code``) or an `errno` value.
    public let code: Int32
    /// A human-readable explanation, by default `mdb_strerror(code)`.
    public let message: String
    /// What was being done when the error happened, e.g. `"mdb_put in database 'log'"`.
    public let operation: String

    /// Creates an error for `code`; the message defaults to LMDB's `mdb_strerror(code)`.
    public init(code: Int32, operation: String, message: String? = nil) {
        self.code = code
        self.operation = operation
        self.message = message ?? String(cString: mdb_strerror(code))
    }

    /// A description naming the operation, the code and the message.
    public var description: String {
        "LMDB error \(code) during \(operation): \(message)"
    }

    /// Whether the map (the database's maximum size) is full (`MDB_MAP_FULL`).
    public var isMapFull: Bool { code == Code.mapFull }
    /// Whether the disk is full (`ENOSPC`): a commit, or a growth of the map, found no room on
    /// the disk; nothing of it was written.
    public var isDiskFull: Bool { code == Code.diskFull }
    /// Whether a key was not found (`MDB_NOTFOUND`).
    public var isNotFound: Bool { code == Code.notFound }
    /// Whether a key already exists and overwriting was not allowed (`MDB_KEYEXIST`).
    public var isKeyExists: Bool { code == Code.keyExists }

    /// LMDB's result codes, converted once from the C macros.
    public enum Code {
        /// `MDB_KEYEXIST`: the key/data pair already exists.
        public static let keyExists: Int32 = MDB_KEYEXIST
        /// `MDB_NOTFOUND`: no matching key/data pair.
        public static let notFound: Int32 = MDB_NOTFOUND
        /// `MDB_MAP_FULL`: the environment's map size has been reached.
        public static let mapFull: Int32 = MDB_MAP_FULL
        /// `MDB_MAP_RESIZED`: another process grew the map beyond this process's mapping.
        public static let mapResized: Int32 = MDB_MAP_RESIZED
        /// `MDB_DBS_FULL`: the environment's maximum number of named databases is reached.
        public static let databasesFull: Int32 = MDB_DBS_FULL
        /// `MDB_READERS_FULL`: the environment's reader table is full.
        public static let readersFull: Int32 = MDB_READERS_FULL
        /// `MDB_BAD_VALSIZE`: a key or value has an unsupported size (a key over 511 bytes, or empty).
        public static let badValueSize: Int32 = MDB_BAD_VALSIZE
        /// `MDB_INVALID`: the file is not an LMDB file.
        public static let invalid: Int32 = MDB_INVALID
        /// `MDB_VERSION_MISMATCH`: the file was written by an incompatible LMDB version.
        public static let versionMismatch: Int32 = MDB_VERSION_MISMATCH
        /// `ENOSPC`: the disk is full (see ``LMDBError/isDiskFull``).
        public static let diskFull: Int32 = 28
        /// `EACCES`: a write transaction asked of an environment opened read-only.
        public static let readOnly: Int32 = 13
        /// `EINVAL`: used by this layer for misuse (a closed environment, a finished transaction).
        public static let invalidArgument: Int32 = 22
    }

    /// Throws an ``LMDBError`` when `code` is not `MDB_SUCCESS`.
    @inline(__always)
    static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws {
        if code != 0 {
            throw LMDBError(code: code, operation: operation())
        }
    }

    /// The error for using a transaction, cursor or environment that is no longer usable.
    static func misuse(_ operation: String, _ message: String) -> LMDBError {
        LMDBError(code: Code.invalidArgument, operation: operation, message: message)
    }
}
