import CLMDB

/// An error reported by LMDB, or by this layer when it is used the wrong way.
///
/// Like GRDB's `DatabaseError`, it carries the raw result ``code`` (LMDB's `MDB_*` codes or an
/// `errno` value), LMDB's own ``message`` (`mdb_strerror`) and the ``operation`` that failed, so
/// that its ``description`` says what failed, on what, and why.
///
/// Its codes match errors in a `catch` pattern, as GRDB's `ResultCode`s do (`~=`):
///
/// ```swift
/// do { try env.write { txn in try txn.put(value, forKey: key, in: db, flags: .noOverwrite) } }
/// catch LMDBError.keyExists { ... }
/// catch let error as LMDBError where error.code == .mapFull { ... }
/// ```
public struct LMDBError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The result code: one of LMDB's `MDB_*` codes (see ``Code``) or an `errno` value.
    public let code: Code
    /// A human-readable explanation, by default `mdb_strerror(code)`.
    public let message: String
    /// What was being done when the error happened, e.g. `"mdb_put in database 'log'"`.
    public let operation: String

    /// Creates an error for `code`; the message defaults to LMDB's `mdb_strerror(code)`.
    public init(code: Code, operation: String, message: String? = nil) {
        self.code = code
        self.operation = operation
        self.message = message ?? String(cString: mdb_strerror(code.rawValue))
    }

    /// Creates an error for the raw result `code` (an `MDB_*` code or an `errno` value).
    public init(code: Int32, operation: String, message: String? = nil) {
        self.init(code: Code(rawValue: code), operation: operation, message: message)
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

    /// An LMDB result code (an `MDB_*` code or an `errno` value), with LMDB's codes as constants.
    ///
    /// A code matches an error in a pattern (`~=`): `catch LMDBError.Code.mapFull` (or its
    /// shorthand `catch LMDBError.mapFull`) catches exactly the ``LMDBError``s with that code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The raw result code.
        public let rawValue: Int32

        /// The code `rawValue`.
        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// The raw code in decimal, as LMDB reports it.
        public var description: String { String(rawValue) }

        /// Whether `error` is an ``LMDBError`` with this code: `catch LMDBError.Code.mapFull`.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? LMDBError)?.code == pattern
        }

        /// `MDB_KEYEXIST`: the key/data pair already exists.
        public static let keyExists = Code(rawValue: MDB_KEYEXIST)
        /// `MDB_NOTFOUND`: no matching key/data pair.
        public static let notFound = Code(rawValue: MDB_NOTFOUND)
        /// `MDB_MAP_FULL`: the environment's map size has been reached.
        public static let mapFull = Code(rawValue: MDB_MAP_FULL)
        /// `MDB_MAP_RESIZED`: another process grew the map beyond this process's mapping.
        public static let mapResized = Code(rawValue: MDB_MAP_RESIZED)
        /// `MDB_DBS_FULL`: the environment's maximum number of named databases is reached.
        public static let databasesFull = Code(rawValue: MDB_DBS_FULL)
        /// `MDB_READERS_FULL`: the environment's reader table is full.
        public static let readersFull = Code(rawValue: MDB_READERS_FULL)
        /// `MDB_BAD_VALSIZE`: a key or value has an unsupported size (a key over 511 bytes, or empty).
        public static let badValueSize = Code(rawValue: MDB_BAD_VALSIZE)
        /// `MDB_INVALID`: the file is not an LMDB file.
        public static let invalid = Code(rawValue: MDB_INVALID)
        /// `MDB_VERSION_MISMATCH`: the file was written by an incompatible LMDB version.
        public static let versionMismatch = Code(rawValue: MDB_VERSION_MISMATCH)
        /// `ENOSPC`: the disk is full (see ``LMDBError/isDiskFull``).
        public static let diskFull = Code(rawValue: 28)
        /// `EACCES`: a write transaction asked of an environment opened read-only.
        public static let readOnly = Code(rawValue: 13)
        /// `EINVAL`: used by this layer for misuse (a closed environment, a finished transaction).
        public static let invalidArgument = Code(rawValue: 22)
    }

    // The codes again, as `LMDBError.mapFull`, for `catch` patterns (GRDB's
    // `catch DatabaseError.SQLITE_CONSTRAINT`).

    /// ``Code/keyExists``: `catch LMDBError.keyExists`.
    public static var keyExists: Code { .keyExists }
    /// ``Code/notFound``: `catch LMDBError.notFound`.
    public static var notFound: Code { .notFound }
    /// ``Code/mapFull``: `catch LMDBError.mapFull`.
    public static var mapFull: Code { .mapFull }
    /// ``Code/mapResized``: `catch LMDBError.mapResized`.
    public static var mapResized: Code { .mapResized }
    /// ``Code/databasesFull``: `catch LMDBError.databasesFull`.
    public static var databasesFull: Code { .databasesFull }
    /// ``Code/readersFull``: `catch LMDBError.readersFull`.
    public static var readersFull: Code { .readersFull }
    /// ``Code/badValueSize``: `catch LMDBError.badValueSize`.
    public static var badValueSize: Code { .badValueSize }
    /// ``Code/invalid``: `catch LMDBError.invalid`.
    public static var invalid: Code { .invalid }
    /// ``Code/versionMismatch``: `catch LMDBError.versionMismatch`.
    public static var versionMismatch: Code { .versionMismatch }
    /// ``Code/diskFull``: `catch LMDBError.diskFull`.
    public static var diskFull: Code { .diskFull }
    /// ``Code/readOnly``: `catch LMDBError.readOnly`.
    public static var readOnly: Code { .readOnly }
    /// ``Code/invalidArgument``: `catch LMDBError.invalidArgument`.
    public static var invalidArgument: Code { .invalidArgument }

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
