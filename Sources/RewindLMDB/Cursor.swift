import CLMDB

/// A cursor over one database inside a transaction, handed to the closure of
/// ``ReadTransaction/withCursor(on:_:)``.
///
/// Movement methods return whether the cursor is now on an entry. The current entry is read with
/// ``withCurrent(_:)`` (borrowed buffers) or ``currentKey`` / ``currentValue`` (copies).
public final class Cursor {
    private let pointer: OpaquePointer
    /// Read only after `isActive` is checked: while it holds, `withCursor(on:_:)` is running on
    /// the transaction, which is therefore alive (so `unowned(unsafe)`, without the atomic
    /// retain and release `unowned` costs on every move).
    private unowned(unsafe) let transaction: ReadTransaction
    /// The database the cursor walks.
    public let database: Database
    private var isActive = true
    /// The current key (`entry[0]`) and value (`entry[1]`), as LMDB hands them out. Not stored
    /// properties of the class: passing a stored property `inout` to `mdb_cursor_get` costs two
    /// dynamic exclusivity checks a move (about 170 instructions of a rebuild's record, callgrind).
    private let entry: UnsafeMutablePointer<MDB_val>
    private var isPositioned = false

    init(pointer: OpaquePointer, transaction: ReadTransaction, database: Database) {
        self.pointer = pointer
        self.transaction = transaction
        self.database = database
        entry = .allocate(capacity: 2)
        entry.initialize(repeating: MDB_val(), count: 2)
    }

    deinit {
        entry.deallocate()
    }

    func finish() { isActive = false }

    private func move(_ operation: MDB_cursor_op, _ name: @autoclosure () -> String) throws -> Bool {
        guard isActive, transaction.isActive else {
            throw LMDBError.misuse(
                "cursor \(name()) on database \(database)",
                "the cursor has ended (it was used outside its closure)")
        }
        let code = mdb_cursor_get(pointer, entry, entry + 1, operation)
        if code == LMDBError.Code.notFound.rawValue {
            isPositioned = false
            return false
        }
        try LMDBError.check(
            code, "mdb_cursor_get \(name()) on database \(database) of '\(transaction.environmentPath)'")
        isPositioned = true
        return true
    }

    /// Moves to the first entry; false when the database is empty.
    public func first() throws -> Bool { try move(MDB_FIRST, "first") }

    /// Moves to the last entry; false when the database is empty.
    public func last() throws -> Bool { try move(MDB_LAST, "last") }

    /// Moves to the next entry; false past the last one.
    public func next() throws -> Bool { try move(MDB_NEXT, "next") }

    /// Moves to the previous entry; false before the first one.
    public func previous() throws -> Bool { try move(MDB_PREV, "previous") }

    /// Moves to the first entry whose key is greater than or equal to `target`; false when every
    /// key is smaller.
    public func seek(to target: UnsafeRawBufferPointer) throws -> Bool {
        entry[0] = MDB_val(mv_size: target.count, mv_data: UnsafeMutableRawPointer(mutating: target.baseAddress))
        return try move(MDB_SET_RANGE, "seek")
    }

    /// Moves to the entry whose key is `target`; false when there is none (the cursor is then on
    /// no entry).
    ///
    /// When the cursor is already on the leaf page that would hold `target`, LMDB searches that
    /// page only, so a walk over keys that lie close together (the records of one session in the
    /// log) does not descend the tree again for each.
    public func seek(exactly target: UnsafeRawBufferPointer) throws -> Bool {
        entry[0] = MDB_val(mv_size: target.count, mv_data: UnsafeMutableRawPointer(mutating: target.baseAddress))
        return try move(MDB_SET_KEY, "seek exactly")
    }

    /// Moves to the first entry whose key is greater than or equal to `target`; false when every
    /// key is smaller.
    public func seek(to target: [UInt8]) throws -> Bool {
        try target.withUnsafeBytes { try seek(to: $0) }
    }

    /// Moves to the last entry whose key is less than or equal to `target`; false when every key
    /// is greater.
    public func seek(toLastAtOrBefore target: [UInt8]) throws -> Bool {
        guard try seek(to: target) else { return try last() }
        let exact = try withCurrent { foundKey, _ in foundKey.elementsEqual(target) } ?? false
        return exact ? true : try previous()
    }

    /// Positions the cursor where a range iteration in `direction` from `start` begins.
    func position(at start: [UInt8]?, direction: IterationDirection) throws -> Bool {
        switch (start, direction) {
        case (nil, .forward): return try first()
        case (nil, .backward): return try last()
        case (let start?, .forward): return try seek(to: start)
        case (let start?, .backward): return try seek(toLastAtOrBefore: start)
        }
    }

    /// Lends the current key and value to `body`; `nil` when the cursor is on no entry. The
    /// buffers are valid only during `body`.
    public func withCurrent<R>(
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        guard isActive, transaction.isActive else {
            throw LMDBError.misuse(
                "cursor current on database \(database)",
                "the cursor has ended (it was used outside its closure)")
        }
        guard isPositioned else { return nil }
        return try body(UnsafeRawBufferPointer(entry[0]), UnsafeRawBufferPointer(entry[1]))
    }

    /// A copy of the current key, or `nil` when the cursor is on no entry.
    public var currentKey: [UInt8]? {
        get throws { try withCurrent { key, _ in Array(key) } }
    }

    /// A copy of the current value, or `nil` when the cursor is on no entry.
    public var currentValue: [UInt8]? {
        get throws { try withCurrent { _, value in Array(value) } }
    }
}
