import CLMDB

/// A read-only LMDB transaction, handed to the closure of ``Environment/read(_:)`` (and, as a
/// ``WriteTransaction``, of ``Environment/write(_:)``).
///
/// It sees one consistent snapshot. It is usable only inside its closure: once the closure
/// returns, every method throws. Values are returned either copied (`[UInt8]`) or lent to a
/// closure as an `UnsafeRawBufferPointer` into LMDB's memory map, valid only during that closure
/// (and never after a put or delete in the same transaction).
public class ReadTransaction {
    /// `MDB_txn*`; valid while `isActive`.
    let pointer: OpaquePointer
    let environmentPath: String
    let environmentSerial: UInt64
    /// The environment's ``SharedEnvironment/opening`` (read under its shared access, as the
    /// transaction is begun).
    let opening: UInt64
    private(set) var isActive = true

    init(pointer: OpaquePointer, environment: SharedEnvironment) {
        self.pointer = pointer
        self.environmentPath = environment.path
        self.environmentSerial = environment.serial
        self.opening = environment.opening
    }

    /// The commit this transaction reads: its snapshot's (for a ``WriteTransaction``, the commit
    /// it builds on, before its own writes).
    /// - Throws: ``LMDBError`` (misuse) once the transaction has ended.
    public func baseCommit() throws -> CommitID {
        try ensureActive("mdb_txn_id")
        return CommitID(opening: opening, transaction: UInt64(mdb_txn_id(pointer)))
    }

    /// Marks the transaction finished; later calls throw.
    func finish() { isActive = false }

    @inline(__always)
    func ensureActive(_ operation: @autoclosure () -> String) throws {
        if !isActive {
            throw LMDBError.misuse(operation(), "the transaction has ended (it was used outside its closure)")
        }
    }

    /// Checks that the transaction is active and `database` belongs to its environment.
    @inline(__always)
    func ensureUsable(_ database: Database, _ operation: @autoclosure () -> String) throws {
        try ensureActive(operation())
        if database.environmentSerial != environmentSerial {
            throw LMDBError.misuse(
                operation(),
                "the database handle \(database) belongs to another (or a closed) environment, not '\(environmentPath)'"
            )
        }
    }

    func openDatabase(named name: String?, create: Bool) throws -> Database {
        try ensureActive("mdb_dbi_open")
        var handle: MDB_dbi = 0
        func open(_ flags: UInt32) -> Int32 {
            if let name {
                mdb_dbi_open(pointer, name, flags, &handle)
            } else {
                mdb_dbi_open(pointer, nil, flags, &handle)
            }
        }
        var code = open(0)
        if code == LMDBError.Code.notFound.rawValue && create {
            code = open(UInt32(MDB_CREATE))
            // Creating a database is a write: LMDB commits it as a new commit.
            if code == 0 { hasCreatedDatabase = true }
        }
        try LMDBError.check(code, "mdb_dbi_open '\(name ?? "main")' in '\(environmentPath)'")
        return Database(name: name, handle: handle, environmentSerial: environmentSerial)
    }

    /// Whether ``openDatabase(named:create:)`` created a database in this transaction.
    private(set) var hasCreatedDatabase = false

    // MARK: Get

    /// Lends the value stored under `key` in `database` to `body`, or returns `nil` when the key
    /// is absent. The buffer points into LMDB's map: do not keep it past `body`.
    public func withValue<R>(
        forKey key: UnsafeRawBufferPointer, in database: Database,
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        try ensureUsable(database, "mdb_get in database \(database)")
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var value = MDB_val()
        let code = mdb_get(pointer, database.handle, &keyValue, &value)
        if code == LMDBError.Code.notFound.rawValue { return nil }
        try LMDBError.check(code, "mdb_get in database \(database) of '\(environmentPath)'")
        return try body(UnsafeRawBufferPointer(value))
    }

    /// Lends the value stored under `key` in `database` to `body`, or returns `nil` when absent.
    public func withValue<R>(
        forKey key: [UInt8], in database: Database, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        try key.withUnsafeBytes { try withValue(forKey: $0, in: database, body) }
    }

    /// A copy of the value stored under `key` in `database`, or `nil` when the key is absent.
    public func get(_ key: UnsafeRawBufferPointer, in database: Database) throws -> [UInt8]? {
        try withValue(forKey: key, in: database) { Array($0) }
    }

    /// A copy of the value stored under `key` in `database`, or `nil` when the key is absent.
    public func get(_ key: [UInt8], in database: Database) throws -> [UInt8]? {
        try withValue(forKey: key, in: database) { Array($0) }
    }

    /// Whether `database` holds `key`.
    public func contains(_ key: [UInt8], in database: Database) throws -> Bool {
        try withValue(forKey: key, in: database) { _ in true } ?? false
    }

    // MARK: Cursors and ranges

    /// Runs `body` with a cursor over `database`; the cursor is closed when `body` returns.
    public func withCursor<R>(on database: Database, _ body: (Cursor) throws -> R) throws -> R {
        try ensureUsable(database, "mdb_cursor_open on database \(database)")
        var cursorPointer: OpaquePointer?
        try LMDBError.check(
            mdb_cursor_open(pointer, database.handle, &cursorPointer),
            "mdb_cursor_open on database \(database) of '\(environmentPath)'")
        guard let cursorPointer else {
            throw LMDBError.misuse("mdb_cursor_open on database \(database)", "LMDB returned no cursor")
        }
        let cursor = Cursor(pointer: cursorPointer, transaction: self, database: database)
        defer {
            cursor.finish()
            mdb_cursor_close(cursorPointer)
        }
        return try body(cursor)
    }

    /// Iterates `database` in key order from `start`, lending each key and value to `body`.
    ///
    /// Forward, the iteration starts at the first key greater than or equal to `start` (the first
    /// key when `start` is `nil`); backward, at the last key less than or equal to `start` (the
    /// last key when `start` is `nil`). It ends when the keys run out or `body` returns
    /// ``IterationControl/stop``. The buffers are valid only during each call of `body`.
    public func forEach(
        in database: Database, from start: [UInt8]? = nil, direction: IterationDirection = .forward,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> IterationControl
    ) throws {
        try withCursor(on: database) { cursor in
            var positioned = try cursor.position(at: start, direction: direction)
            while positioned {
                let control = try cursor.withCurrent { key, value in try body(key, value) }
                if control != .next { return }
                positioned = try direction == .forward ? cursor.next() : cursor.previous()
            }
        }
    }

    /// The statistics of `database` (entries, depth, pages) as seen by this transaction.
    public func statistics(of database: Database) throws -> DatabaseStatistics {
        try ensureUsable(database, "mdb_stat on database \(database)")
        var stat = MDB_stat()
        try LMDBError.check(
            mdb_stat(pointer, database.handle, &stat),
            "mdb_stat on database \(database) of '\(environmentPath)'")
        return DatabaseStatistics(stat)
    }
}

/// A read-write LMDB transaction, handed to the closure of ``Environment/write(_:)``.
///
/// It commits when the closure returns and aborts when it throws. Reads in it see its own writes.
public final class WriteTransaction: ReadTransaction {
    /// Set when an operation returned `MDB_MAP_FULL`: the transaction is then unusable and the
    /// environment grows the map and reruns the closure, even if the closure caught the error.
    private(set) var hitMapFull = false
    /// Set by every put, delete and `removeAll` that succeeded (and ``hasCreatedDatabase`` by a
    /// database created): LMDB then commits the transaction as a new commit (one that changed
    /// nothing leaves the base commit as it was).
    private var hasWritten = false

    override public func baseCommit() throws -> CommitID {
        try ensureActive("mdb_txn_id")
        // A write transaction's id is the one its commit will have: the last commit's plus one.
        return CommitID(opening: opening, transaction: UInt64(mdb_txn_id(pointer)) - 1)
    }

    /// The commit that holds this transaction's writes once it commits: the next commit when it
    /// has written anything, otherwise its base commit (LMDB does not commit a transaction that
    /// changed nothing, so the next commit, of any process, may change what it did not).
    /// - Throws: ``LMDBError`` (misuse) once the transaction has ended.
    public func resultCommit() throws -> CommitID {
        try ensureActive("mdb_txn_id")
        let isNewCommit = hasWritten || hasCreatedDatabase
        return CommitID(opening: opening, transaction: UInt64(mdb_txn_id(pointer)) - (isNewCommit ? 0 : 1))
    }

    private func check(_ code: Int32, _ operation: @autoclosure () -> String) throws {
        if code == LMDBError.Code.mapFull.rawValue { hitMapFull = true }
        try LMDBError.check(code, operation())
    }

    /// Stores `value` under `key` in `database`.
    /// - Throws: ``LMDBError`` with `MDB_KEYEXIST` when `flags` has ``PutFlags/noOverwrite`` and the
    ///   key exists, or ``PutFlags/append`` and the key is not the greatest; `MDB_BAD_VALSIZE` for
    ///   an empty key or one over 511 bytes.
    public func put(
        _ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer,
        in database: Database, flags: PutFlags = []
    ) throws {
        try ensureUsable(database, "mdb_put in database \(database)")
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var dataValue = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        try check(
            mdb_put(pointer, database.handle, &keyValue, &dataValue, flags.rawValue),
            "mdb_put in database \(database) of '\(environmentPath)'")
        hasWritten = true
    }

    /// Reserves `count` bytes for the value of `key` in `database` and lets `write` fill them in
    /// place (`MDB_RESERVE`): the value is written straight into LMDB's page (into the map itself
    /// with ``EnvironmentOptions/writeMap``), never copied. `write` must fill all `count` bytes;
    /// the space is valid only during `write`.
    /// - Throws: ``LMDBError`` as the other `put`s do (`MDB_KEYEXIST` with ``PutFlags/append`` for a
    ///   key that is not the greatest, `MDB_MAP_FULL`, …); `write` is not called then.
    public func put(
        reserving count: Int, forKey key: UnsafeRawBufferPointer, in database: Database, flags: PutFlags = [],
        _ write: (UnsafeMutableRawBufferPointer) -> Void
    ) throws {
        try ensureUsable(database, "mdb_put in database \(database)")
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var dataValue = MDB_val(mv_size: count, mv_data: nil)
        try check(
            mdb_put(pointer, database.handle, &keyValue, &dataValue, flags.rawValue | UInt32(MDB_RESERVE)),
            "mdb_put in database \(database) of '\(environmentPath)'")
        hasWritten = true
        write(UnsafeMutableRawBufferPointer(start: dataValue.mv_data, count: count))
    }

    /// Stores `value` under `key` in `database` (see the buffer-pointer variant for the errors).
    public func put(_ value: [UInt8], forKey key: [UInt8], in database: Database, flags: PutFlags = []) throws {
        try value.withUnsafeBytes { valueBytes in
            try key.withUnsafeBytes { keyBytes in
                try put(valueBytes, forKey: keyBytes, in: database, flags: flags)
            }
        }
    }

    /// Deletes `key` from `database`; returns whether it was there.
    @discardableResult
    public func delete(_ key: UnsafeRawBufferPointer, in database: Database) throws -> Bool {
        try ensureUsable(database, "mdb_del in database \(database)")
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        let code = mdb_del(pointer, database.handle, &keyValue, nil)
        if code == LMDBError.Code.notFound.rawValue { return false }
        try check(code, "mdb_del in database \(database) of '\(environmentPath)'")
        hasWritten = true
        return true
    }

    /// Deletes `key` from `database`; returns whether it was there.
    @discardableResult
    public func delete(_ key: [UInt8], in database: Database) throws -> Bool {
        try key.withUnsafeBytes { try delete($0, in: database) }
    }

    /// Deletes every entry of `database`, keeping the database itself (`mdb_drop(…, 0)`).
    public func removeAll(in database: Database) throws {
        try ensureUsable(database, "mdb_drop in database \(database)")
        try check(mdb_drop(pointer, database.handle, 0), "mdb_drop in database \(database) of '\(environmentPath)'")
        hasWritten = true
    }
}

extension UnsafeRawBufferPointer {
    /// A view of an `MDB_val` (valid only as long as LMDB guarantees the value).
    init(_ value: MDB_val) {
        self.init(start: value.mv_data, count: value.mv_size)
    }
}
