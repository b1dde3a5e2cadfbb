#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A page of an environment's data file (`data.mdb`) whose structure LMDB would trust and must
/// not: a page header, node or child page number that points outside the page or the file.
///
/// LMDB does not check the pages it reads: a damaged page makes it read outside its map and kill
/// the process (`SIGSEGV`). ``EnvironmentOptions/checkPages`` checks every page LMDB could reach
/// before it opens the file, and throws this error for the first damaged one.
public struct DamagedPageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data file's path.
    public let path: String
    /// The damaged page's number (its offset in the file divided by the page size).
    public let page: UInt64
    /// The B-tree the page belongs to: `"main"` (the directory of named databases), `"free"`
    /// (LMDB's list of free pages) or a named database's name.
    public let database: String
    /// What is wrong with it, e.g. `"node 3 at offset 65535 runs past the page's end (4096 bytes)"`.
    public let reason: String

    /// Creates the error for page `page` of `database` in the data file `path`.
    public init(path: String, page: UInt64, database: String, reason: String) {
        self.path = path
        self.page = page
        self.database = database
        self.reason = reason
    }

    /// A sentence naming the file, the page, its database and what is wrong.
    public var description: String {
        "damaged data file '\(path)': page \(page) (database '\(database)'): \(reason); "
            + "the store cannot be read safely (restore it from a copy)"
    }
}

/// The check of every page LMDB could read in a data file, made with `pread` before
/// `mdb_env_open` (nothing is mapped, so a damaged page cannot crash the check).
///
/// From both meta pages (LMDB keeps the older meta's pages until the transaction after next, so
/// at rest both trees are whole) it walks the main database, the named databases its leaves hold
/// and the free database, and checks on each page what LMDB relies on without checking it
/// (`mdb.c`, 64-bit; `MDB_page`: `mp_pgno` 8, `mp_pad` 2, `mp_flags` 2, `mp_lower` 2, `mp_upper` 2
/// — `mp_pages` 4 on overflow pages — then `mp_ptrs`, the nodes' offsets; `MDB_node`: `mn_lo` 2,
/// `mn_hi` 2, `mn_flags` 2, `mn_ksize` 2, then the key and the data):
///
/// - the header's page number is the page's own, and its flags say branch at every level above
///   the database's depth and leaf at the last (no other bits: LMDB clears its in-memory flags
///   before a page is written);
/// - `mp_lower`/`mp_upper` bound the offsets array and the nodes within the page, and the nodes
///   fill `mp_upper…end` exactly, one after the other (as `mdb_node_add`/`mdb_node_del` keep them);
/// - keys ascend (bytewise; as native integers in the free database);
/// - a branch node's child and a big value's overflow pages are within the file and the meta's
///   last page, no page is reached twice, an overflow page says so and holds its value;
/// - a named database's record (`MDB_db`) has a depth LMDB can descend (at most 32 levels) and no
///   flags RewindLMDB never uses (sorted duplicates and the like);
/// - a free-list record is a count and that many page numbers within the file.
///
/// Damage that keeps this structure (a changed byte inside a key or a value) is not found here:
/// the store's own checks (record checksums) find what they can of it.
package enum PageCheck {
    static let branchFlag: UInt16 = 0x01
    static let leafFlag: UInt16 = 0x02
    static let overflowFlag: UInt16 = 0x04
    static let bigDataNode: UInt16 = 0x01
    static let subDatabaseNode: UInt16 = 0x02
    /// `P_INVALID`: the root of an empty database.
    static let noPage = UInt64.max
    /// `CURSOR_STACK`: the deepest tree LMDB descends.
    static let maximumDepth = 32
    /// `MDB_INTEGERKEY`, the one database flag this check knows (the free database's).
    static let integerKeyFlag: UInt16 = 0x08

    /// Checks the pages of the data file in `directory`, which ``DataFileCheck`` found valid.
    ///
    /// Another process may commit while the pages are read, and its later commits may reuse pages
    /// of the older meta: a check that fails is made again (at most three times) while the meta
    /// pages change under it.
    /// - Returns: the pages in use: the meta pages and every page the walks reached.
    /// - Throws: ``DamagedPageError`` for the first damaged page, ``DataFileError`` for damaged
    ///   meta pages, ``LMDBError`` when the file cannot be read.
    @discardableResult
    package static func check(directory: String) throws -> Set<UInt64> {
        let path = directory + "/data.mdb"
        let fd = open(path, O_RDONLY)
        if fd < 0 {
            let code = errno
            throw LMDBError(
                code: code, operation: "opening '\(path)' to check its pages",
                message: String(cString: strerror(code)))
        }
        defer { close(fd) }
        var attempt = 1
        while true {
            let metas = try readMetas(fd, path: path)
            do {
                var inUse: Set<UInt64> = [0, 1]
                for meta in metas.sorted(by: { $0.transactionID > $1.transactionID }) {
                    var walk = Walk(
                        fd: fd, path: path, meta: meta,
                        filePages: UInt64(DataFileCheck.fileSize(fd)) / UInt64(meta.pageSize))
                    try walk.run()
                    inUse.formUnion(walk.reached)
                }
                return inUse
            } catch let error as DamagedPageError {
                let now = try readMetas(fd, path: path)
                guard attempt < 3, now.map(\.transactionID) != metas.map(\.transactionID) else { throw error }
                attempt += 1
            }
        }
    }

    /// Zeroes every byte of the data file open as `fd` (at `path`, for messages) that no page in
    /// use needs: the free space between a branch or leaf page's node pointers and its nodes, and
    /// the end of a big value's last overflow page. LMDB does not clear either (a page it reuses
    /// keeps what it held), and its compacting copy copies both, so bytes of deleted values can
    /// survive in a compacted file; compaction scrubs its copy before it replaces `data.mdb`, so
    /// that erased sessions' bytes are gone from the file. The pages are checked as
    /// ``check(directory:)`` checks them while they are walked.
    ///
    /// - Throws: ``DamagedPageError``, ``DataFileError``, ``LMDBError`` when the file cannot be
    ///   read or written.
    ///
    /// The file is mapped for the walk (its pages read and cleared in memory, written back by the
    /// caller's `fsync`): a read and a write call per page made the scrub cost more than the copy.
    /// The trees of the second meta page are walked only when they are not the first's.
    package static func scrub(fd: Int32, path: String) throws {
        let metas = try readMetas(fd, path: path)
        let length = Int(DataFileCheck.fileSize(fd))
        guard length > 0 else { return }
        guard let map = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0),
            map != UnsafeMutableRawPointer(bitPattern: -1)
        else {
            let code = errno
            throw LMDBError(
                code: code, operation: "mapping '\(path)' to clear its unused bytes",
                message: String(cString: strerror(code)))
        }
        defer {
            #if !os(Linux)
                // Linux's fsync (the caller's) writes a file's dirty mapped pages; elsewhere, push
                // them to the file first.
                msync(map, length, MS_SYNC)
            #endif
            munmap(map, length)
        }
        var walked: [(UInt64, UInt64)] = []
        for meta in metas {
            let trees = (meta.freeDatabase.root, meta.mainDatabase.root)
            guard !walked.contains(where: { $0 == trees }) else { continue }
            walked.append(trees)
            var walk = Walk(
                fd: fd, path: path, meta: meta, filePages: UInt64(length) / UInt64(meta.pageSize), scrubs: true,
                map: UnsafeMutableRawBufferPointer(start: map, count: length))
            try walk.run()
        }
    }

    /// The two meta pages.
    private static func readMetas(_ fd: Int32, path: String) throws -> [DataFileCheck.Meta] {
        func fail(_ expected: String, _ found: String) -> DataFileError {
            DataFileError(path: path, expected: expected, found: found)
        }
        let first = try DataFileCheck.readMeta(fd, at: 0, path: path)
        guard first.bytes.count == DataFileCheck.metaBytes else {
            throw fail("LMDB's two meta pages", "\(DataFileCheck.fileSize(fd)) bytes")
        }
        let meta0 = try DataFileCheck.Meta(first.bytes, page: 0, fail: fail)
        let second = try DataFileCheck.readMeta(fd, at: off_t(meta0.pageSize), path: path)
        guard second.bytes.count == DataFileCheck.metaBytes else {
            throw fail("LMDB's two meta pages", "\(DataFileCheck.fileSize(fd)) bytes")
        }
        let meta1 = try DataFileCheck.Meta(second.bytes, page: 1, fail: fail)
        guard meta1.pageSize == meta0.pageSize else {
            throw fail("the page size of meta page 0 (\(meta0.pageSize)) in meta page 1", "\(meta1.pageSize)")
        }
        return [meta0, meta1]
    }

    /// One walk of the trees one meta page names.
    private struct Walk {
        let fd: Int32
        let path: String
        let meta: DataFileCheck.Meta
        /// The whole pages the file holds.
        let filePages: UInt64
        var pageSize: Int { Int(meta.pageSize) }
        /// The pages reached so far (a page reached twice is a cycle or a shared page: damage).
        var reached = Set<UInt64>()
        /// The page being checked, reused for every page.
        var page: [UInt8]
        /// Whether the walk zeroes what the pages do not use (see ``PageCheck/scrub(fd:path:)``).
        let scrubs: Bool
        /// The file mapped (shared, writable), when the walk reads and clears it in memory
        /// instead of with `pread` and `pwrite`.
        let map: UnsafeMutableRawBufferPointer?

        init(
            fd: Int32, path: String, meta: DataFileCheck.Meta, filePages: UInt64, scrubs: Bool = false,
            map: UnsafeMutableRawBufferPointer? = nil
        ) {
            self.fd = fd
            self.path = path
            self.meta = meta
            self.filePages = filePages
            self.page = [UInt8](repeating: 0, count: Int(meta.pageSize))
            self.scrubs = scrubs
            self.map = map
        }

        /// Reads `bytes.count` bytes of the file at `offset` into `bytes`: the count read (fewer
        /// at the file's end), or minus `errno`.
        private func read(into bytes: inout [UInt8], at offset: off_t) -> Int {
            guard let map else { return DataFileCheck.readFully(fd, into: &bytes, at: offset) }
            guard offset >= 0, Int(offset) < map.count else { return 0 }
            let count = min(bytes.count, map.count - Int(offset))
            bytes.withUnsafeMutableBytes {
                $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: map[Int(offset)..<(Int(offset) + count)]))
            }
            return count
        }

        /// Whether every byte of `bytes` is zero (read eight at a time).
        private static func isZero(_ bytes: UnsafeRawBufferPointer) -> Bool {
            var index = 0
            while index + 8 <= bytes.count {
                if bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) != 0 { return false }
                index += 8
            }
            while index < bytes.count {
                if bytes[index] != 0 { return false }
                index += 1
            }
            return true
        }

        /// Writes zeros over `count` bytes of the file at `offset`.
        private func zero(_ count: Int, at offset: off_t, pgno: UInt64, database: String) throws {
            guard count > 0 else { return }
            if let map {
                // Within the pages the walk has read: checked against the file's length before.
                guard offset >= 0, count <= map.count - Int(offset) else {
                    throw damaged(pgno, database, "its unused bytes run past the file's end")
                }
                let bytes = UnsafeMutableRawBufferPointer(rebasing: map[Int(offset)..<(Int(offset) + count)])
                // Only bytes that are not zero yet: a store that never deleted has none, and a
                // write to a mapped page costs the file system a page fault (ext4's page_mkwrite).
                if !Self.isZero(UnsafeRawBufferPointer(bytes)) { bytes.initializeMemory(as: UInt8.self, repeating: 0) }
                return
            }
            let zeros = [UInt8](repeating: 0, count: count)
            let written = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, count, offset) }
            guard written == count else {
                let code = written < 0 ? errno : EIO
                throw LMDBError(
                    code: code, operation: "clearing the unused bytes of page \(pgno) of '\(path)' (\(database))",
                    message: String(cString: strerror(code)))
            }
        }

        mutating func run() throws {
            try walk(meta.freeDatabase, name: "free", flags: PageCheck.integerKeyFlag, freeList: true, from: nil)
            var named: [(String, DatabaseRecord, UInt64)] = []
            try walk(meta.mainDatabase, name: "main", flags: 0, freeList: false, from: nil) { key, record, page in
                named.append((String(decoding: key, as: UTF8.self), record, page))
            }
            for (name, record, page) in named {
                try walk(record, name: name, flags: 0, freeList: false, from: page)
            }
        }

        /// The keys a page may hold: from `lower` (inclusive) to `upper` (exclusive), as its
        /// parents' keys say; `nil` where the tree's edge is.
        struct KeyRange {
            var lower: [UInt8]?
            var upper: [UInt8]?
        }

        /// A page to check: its number, level (1 for a leaf) and key range.
        struct Pending {
            var page: UInt64
            var level: Int
            var keys: KeyRange
        }

        private func damaged(_ pgno: UInt64, _ database: String, _ reason: String) -> DamagedPageError {
            DamagedPageError(path: path, page: pgno, database: database, reason: reason)
        }

        /// Checks that `pgno` can be read: not a meta page, within the file and the meta's pages,
        /// not reached before. `from` names the page (or meta) that points at it.
        private mutating func reach(_ pgno: UInt64, count: UInt64 = 1, database: String, from: String) throws {
            guard pgno >= 2, pgno <= meta.lastPage, count <= meta.lastPage - pgno + 1 else {
                throw damaged(
                    pgno, database,
                    "\(from) points at pages \(pgno)…\(pgno &+ count &- 1), "
                        + "outside pages 2…\(meta.lastPage) of transaction \(meta.transactionID)")
            }
            guard pgno < filePages, count <= filePages - pgno else {
                throw damaged(
                    pgno, database,
                    "\(from) points at pages \(pgno)…\(pgno + count - 1), "
                        + "past the file's end (\(filePages) pages)")
            }
            for number in pgno..<(pgno + count) {
                guard reached.insert(number).inserted else {
                    throw damaged(
                        number, database, "\(from) points at it, but it was reached before (a cycle or a shared page)")
                }
            }
        }

        /// Reads page `pgno` into `page`.
        private mutating func read(_ pgno: UInt64, database: String) throws {
            let count = read(into: &page, at: off_t(pgno) * off_t(pageSize))
            if count < 0 {
                throw LMDBError(
                    code: -Int32(count), operation: "reading page \(pgno) of '\(path)'",
                    message: String(cString: strerror(-Int32(count))))
            }
            guard count == pageSize else { throw damaged(pgno, database, "it is cut off by the file's end") }
        }

        /// The little-endian 16-bit integer at `offset` of `page` (within the page: callers check).
        private func uint16(_ offset: Int) -> Int {
            Int(
                UInt16(littleEndian: page.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) })
            )
        }

        /// The little-endian 64-bit integer at `offset` of `page` (within the page: callers check).
        private func uint64(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: page.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) })
        }

        /// Walks the tree of `record` (named `name`), depth first. `onSubDatabase` receives the
        /// named databases of the main database's leaves (key, record, page).
        private mutating func walk(
            _ record: DatabaseRecord, name: String, flags: UInt16, freeList: Bool, from: UInt64?,
            onSubDatabase: (([UInt8], DatabaseRecord, UInt64) throws -> Void)? = nil
        ) throws {
            let origin = from.map { "its record on page \($0)" } ?? "meta page of transaction \(meta.transactionID)"
            if record.root == PageCheck.noPage { return }
            guard record.flags & ~flags == 0 else {
                throw damaged(
                    from ?? (meta.transactionID & 1), name,
                    "the database's flags are 0x\(String(record.flags, radix: 16)), which RewindLMDB never uses")
            }
            guard record.depth >= 1, record.depth <= PageCheck.maximumDepth else {
                throw damaged(
                    from ?? (meta.transactionID & 1), name,
                    "the database's depth is \(record.depth), not 1…\(PageCheck.maximumDepth)")
            }
            try reach(record.root, database: name, from: origin)
            var pending = [Pending(page: record.root, level: Int(record.depth), keys: KeyRange())]
            while let next = pending.popLast() {
                try read(next.page, database: name)
                let children = try checkPage(next, name: name, freeList: freeList, onSubDatabase: onSubDatabase)
                if scrubs {
                    // The free space between the node pointers and the nodes (checked above).
                    let lower = uint16(12)
                    let upper = uint16(14)
                    if page[lower..<upper].contains(where: { $0 != 0 }) {
                        try zero(
                            upper - lower, at: off_t(next.page) * off_t(pageSize) + off_t(lower), pgno: next.page,
                            database: name)
                    }
                }
                for child in children.reversed() {
                    try reach(child.page, database: name, from: "branch page \(next.page)")
                    pending.append(child)
                }
            }
        }

        /// Checks the page in `page` (`pending.page`; `pending.level` 1 for a leaf, its keys within
        /// `pending.keys`) and returns a branch's children.
        private mutating func checkPage(
            _ pending: Pending, name: String, freeList: Bool,
            onSubDatabase: (([UInt8], DatabaseRecord, UInt64) throws -> Void)?
        ) throws -> [Pending] {
            let pgno = pending.page
            let level = pending.level
            let integerKeys = freeList
            let path = self.path
            let fail = { (reason: String) in DamagedPageError(path: path, page: pgno, database: name, reason: reason) }
            let number = uint64(0)
            guard number == pgno else { throw fail("its header says page \(number)") }
            let flags = UInt16(uint16(10))
            let isBranch = level > 1
            let expected = isBranch ? PageCheck.branchFlag : PageCheck.leafFlag
            guard flags == expected else {
                throw fail(
                    "its flags are 0x\(String(flags, radix: 16)), not 0x\(String(expected, radix: 16)) "
                        + "(a \(isBranch ? "branch" : "leaf") page at this depth)")
            }
            let lower = uint16(12)
            let upper = uint16(14)
            let header = DataFileCheck.pageHeaderSize
            guard lower >= header, (lower - header) % 2 == 0, lower <= upper, upper <= pageSize else {
                throw fail("its free space runs from \(lower) to \(upper), not within \(header)…\(pageSize)")
            }
            let count = (lower - header) / 2
            if isBranch && count == 0 { throw fail("it is a branch page without children") }
            var nodes: [(offset: Int, size: Int)] = []
            nodes.reserveCapacity(count)
            var children: [Pending] = []
            var previousKey: Range<Int>?
            for index in 0..<count {
                let offset = uint16(header + 2 * index)
                guard offset >= upper, offset + 8 <= pageSize else {
                    throw fail("node \(index) is at offset \(offset), outside the nodes' space \(upper)…\(pageSize)")
                }
                let low = UInt64(uint16(offset))
                let high = UInt64(uint16(offset + 2))
                let nodeFlags = UInt16(uint16(offset + 4))
                let keySize = uint16(offset + 6)
                let keyRange = (offset + 8)..<(offset + 8 + keySize)
                var size = 8 + keySize
                if isBranch {
                    // Its keys from this node's key (the page's lower bound for the first) to the next's.
                    if let last = children.indices.last { children[last].keys.upper = Array(page[keyRange]) }
                    children.append(
                        Pending(
                            page: low | high << 16 | UInt64(nodeFlags) << 32, level: level - 1,
                            keys: KeyRange(
                                lower: index == 0 ? pending.keys.lower : Array(page[keyRange]),
                                upper: pending.keys.upper)))
                } else {
                    let dataSize = Int(low | high << 16)
                    switch nodeFlags {
                    case 0, PageCheck.subDatabaseNode:
                        size += dataSize
                    case PageCheck.bigDataNode:
                        size += 8
                    default:
                        throw fail("node \(index) has flags 0x\(String(nodeFlags, radix: 16))")
                    }
                    guard offset + size <= pageSize else {
                        throw fail(
                            "node \(index) at offset \(offset) (\(size) bytes) runs past the page's end (\(pageSize) bytes)"
                        )
                    }
                    let dataAt = offset + 8 + keySize
                    if nodeFlags == PageCheck.subDatabaseNode {
                        guard onSubDatabase != nil, dataSize == DatabaseRecord.size else {
                            throw fail("node \(index) holds a named database where none can be")
                        }
                    }
                    if nodeFlags == PageCheck.bigDataNode {
                        try checkOverflow(uint64(dataAt), dataSize: dataSize, name: name, from: pgno, node: index)
                        // `checkOverflow` read other pages: read this one again.
                        try read(pgno, database: name)
                    } else if freeList {
                        try checkFreeList(
                            Array(page[dataAt..<(dataAt + dataSize)]), pgno: pgno, node: index, name: name)
                    }
                    if nodeFlags == PageCheck.subDatabaseNode, let onSubDatabase {
                        try onSubDatabase(Array(page[keyRange]), DatabaseRecord(page, at: dataAt), pgno)
                    }
                }
                guard offset + size <= pageSize else {
                    throw fail(
                        "node \(index) at offset \(offset) (\(size) bytes) runs past the page's end (\(pageSize) bytes)"
                    )
                }
                // A branch's first key is empty (everything below the second key).
                if !isBranch || index > 0 {
                    if let previousKey, !ascends(page[previousKey], page[keyRange], integer: integerKeys) {
                        throw fail("the key of node \(index) does not follow the key of node \(index - 1)")
                    }
                    if let lower = pending.keys.lower, ascends(page[keyRange], lower[...], integer: integerKeys) {
                        throw fail("the key of node \(index) is below the keys its parent page leads to")
                    }
                    if let upper = pending.keys.upper, !ascends(page[keyRange], upper[...], integer: integerKeys) {
                        throw fail("the key of node \(index) is at or above the keys of the next page")
                    }
                    previousKey = keyRange
                }
                nodes.append((offset, (size + 1) & ~1))
            }
            // The nodes fill `upper…end` one after the other.
            var next = upper
            for node in nodes.sorted(by: { $0.offset < $1.offset }) {
                guard node.offset == next else {
                    throw fail(
                        node.offset < next
                            ? "node at offset \(node.offset) overlaps the node before it (which ends at \(next))"
                            : "a gap from offset \(next) to \(node.offset) between its nodes")
                }
                next += node.size
            }
            guard next == pageSize else {
                throw fail("its nodes end at offset \(next), not at the page's end (\(pageSize))")
            }
            return children
        }

        /// Whether the key `next` follows the key `previous`: bytewise, or as native 8-byte
        /// integers (`integer`).
        private func ascends(_ previous: ArraySlice<UInt8>, _ next: ArraySlice<UInt8>, integer: Bool) -> Bool {
            if integer {
                guard previous.count == 8, next.count == 8 else { return false }
                func value(_ key: ArraySlice<UInt8>) -> UInt64 {
                    key.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                }
                return value(previous) < value(next)
            }
            // LMDB's `mdb_cmp_memn`: the common prefix with `memcmp`, then the shorter key first.
            let common = min(previous.count, next.count)
            let order = previous.withUnsafeBytes { left in
                next.withUnsafeBytes { right -> Int32 in
                    guard common > 0, let left = left.baseAddress, let right = right.baseAddress else { return 0 }
                    return memcmp(left, right, common)
                }
            }
            return order < 0 || (order == 0 && previous.count < next.count)
        }

        /// Checks the overflow pages of a big value: within the file, marked as overflow pages
        /// that say how many there are, enough for `dataSize` bytes. A free-list value is checked too.
        private mutating func checkOverflow(_ first: UInt64, dataSize: Int, name: String, from pgno: UInt64, node: Int)
            throws
        {
            let needed = UInt64((DataFileCheck.pageHeaderSize + dataSize + pageSize - 1) / pageSize)
            let from = "node \(node) of page \(pgno)"
            guard first != PageCheck.noPage, first >= 2, first <= meta.lastPage, first < filePages else {
                throw damaged(pgno, name, "\(from) points at overflow page \(first), outside the file's pages")
            }
            try read(first, database: name)
            let number = uint64(0)
            let flags = UInt16(uint16(10))
            let pages = UInt64(UInt32(uint16(12)) | UInt32(uint16(14)) << 16)
            guard number == first, flags == PageCheck.overflowFlag, pages >= needed else {
                throw damaged(
                    first, name,
                    "\(from) points at it for \(needed) overflow pages of \(dataSize) bytes, but its "
                        + "header says page \(number), flags 0x\(String(flags, radix: 16)), \(pages) pages")
            }
            try reach(first, count: pages, database: name, from: from)
            if scrubs {
                // After the value, to the end of its last page.
                let end = Int(pages) * pageSize
                let used = DataFileCheck.pageHeaderSize + dataSize
                try zero(end - used, at: off_t(first) * off_t(pageSize) + off_t(used), pgno: first, database: name)
            }
            if name == "free" {
                var bytes = [UInt8](repeating: 0, count: dataSize)
                let count = read(into: &bytes, at: off_t(first) * off_t(pageSize) + off_t(DataFileCheck.pageHeaderSize))
                guard count == dataSize else { throw damaged(first, name, "its value is cut off by the file's end") }
                try checkFreeList(bytes, pgno: first, node: node, name: name)
            }
        }

        /// Checks a free-list record: a count, then that many page numbers of this file.
        private func checkFreeList(_ data: [UInt8], pgno: UInt64, node: Int, name: String) throws {
            func value(_ index: Int) -> UInt64 {
                (0..<8).reduce(UInt64(0)) { $0 | UInt64(data[8 * index + $1]) << (8 * $1) }
            }
            guard data.count >= 8, data.count % 8 == 0, value(0) == UInt64(data.count / 8 - 1) else {
                throw damaged(
                    pgno, name,
                    "node \(node) is no list of free pages (\(data.count) bytes"
                        + (data.count >= 8 ? ", count \(value(0)))" : ")"))
            }
            for index in 1..<(data.count / 8) where value(index) < 2 || value(index) > meta.lastPage {
                throw damaged(
                    pgno, name, "node \(node) lists page \(value(index)) as free, outside pages 2…\(meta.lastPage)")
            }
        }
    }
}

/// The fields of an `MDB_db` record (48 bytes: `md_pad` 4, `md_flags` 2, `md_depth` 2, the page
/// counts and entries 8 each, `md_root` 8) that ``PageCheck`` walks by.
struct DatabaseRecord {
    static let size = 48
    var flags: UInt16
    var depth: UInt16
    var root: UInt64

    init(_ bytes: [UInt8], at offset: Int) {
        flags = UInt16(bytes[offset + 4]) | UInt16(bytes[offset + 5]) << 8
        depth = UInt16(bytes[offset + 6]) | UInt16(bytes[offset + 7]) << 8
        root = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + 40 + $1]) << (8 * $1) }
    }
}
