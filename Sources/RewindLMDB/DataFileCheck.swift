#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An environment's data file (`data.mdb`) that LMDB cannot safely map: too short for the pages
/// its meta pages say it holds (a truncated copy), or meta pages that are not LMDB's.
///
/// Reading a page past the end of a mapped file kills the process (`SIGBUS`), so the data file is
/// checked against its meta pages before LMDB opens (and maps) it; see ``Environment``.
public struct DataFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data file's path.
    public let path: String
    /// What the file should have been, e.g. `"at least 2162688 bytes (pages 0…527 of 4096
    /// bytes, as the meta page of transaction 812 records)"`.
    public let expected: String
    /// What the file is, e.g. `"200000 bytes"`.
    public let found: String

    /// Creates the error for the data file `path`.
    public init(path: String, expected: String, found: String) {
        self.path = path
        self.expected = expected
        self.found = found
    }

    /// A sentence naming the file, what was expected and what was found.
    public var description: String {
        "damaged data file '\(path)': expected \(expected), found \(found); "
            + "the store cannot be opened (restore it from a copy)"
    }
}

/// The check of a data file against LMDB's two meta pages, made before `mdb_env_open`.
///
/// Layout (LMDB's `mdb.c`, 64-bit): every page starts with a 16-byte header (`mp_pgno` 8,
/// `mp_pad` 2, `mp_flags` 2 with `P_META` = 0x08 on meta pages, `mp_lower`/`mp_upper` 4); pages 0
/// and 1 then hold an `MDB_meta`: `mm_magic` UInt32 0xBEEFC0DE, `mm_version` UInt32 (1),
/// `mm_address` 8, `mm_mapsize` 8, `mm_dbs[2]` (48 bytes each; the page size is the free
/// database's `md_pad`, its first 4 bytes), `mm_last_pg` 8, `mm_txnid` 8. Integers are the
/// machine's (little-endian on every supported platform). LMDB uses the meta of the larger
/// transaction id; the pages `0…mm_last_pg` it names must be in the file.
enum DataFileCheck {
    /// What the data file holds.
    enum State: Equatable {
        /// No data file yet.
        case absent
        /// An empty file, or one whose meta pages are not written yet (zeros): a process is
        /// creating the environment right now (with a writable map the file is sized to the map
        /// before LMDB writes its meta pages).
        case blank
        /// Two valid meta pages, and the file holds every page they name.
        case valid
    }

    static let pageHeaderSize = 16
    static let magic: UInt32 = 0xBEEF_C0DE
    static let dataVersion: UInt32 = 1
    static let metaFlag: UInt16 = 0x08
    /// The bytes of a meta page this check reads: the header and `MDB_meta` through `mm_txnid`.
    static let metaBytes = pageHeaderSize + 136

    /// Checks the data file of the environment directory `directory`.
    /// - Throws: ``DataFileError`` when it is too short for its meta pages or they are not LMDB's;
    ///   ``LMDBError`` when it cannot be read.
    static func check(directory: String) throws -> State {
        let path = directory + "/data.mdb"
        let fd = open(path, O_RDONLY)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return .absent }
            throw LMDBError(
                code: code, operation: "opening '\(path)' to check its meta pages",
                message: String(cString: strerror(code)))
        }
        defer { close(fd) }
        func fail(_ expected: String, _ found: String) -> DataFileError {
            DataFileError(path: path, expected: expected, found: found)
        }
        // The meta pages are read before the size: a writer only ever grows the file, and writes
        // a transaction's pages before its meta page, so a size read afterwards covers them.
        let first = try readMeta(fd, at: 0, path: path)
        if first.isBlank {
            return .blank
        }
        guard first.bytes.count == metaBytes else {
            throw fail("LMDB's two meta pages (at least 2 pages)", "\(fileSize(fd)) bytes")
        }
        let meta0 = try Meta(first.bytes, page: 0, fail: fail)
        let pageSize = Int(meta0.pageSize)
        guard pageSize >= 256, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw fail(
                "a page size that is a power of two from 256 to 65536 in meta page 0",
                "\(pageSize)")
        }
        let second = try readMeta(fd, at: off_t(pageSize), path: path)
        if second.isBlank && meta0.transactionID == 0 {
            return .blank  // LMDB is writing the new environment's two meta pages right now
        }
        guard second.bytes.count == metaBytes else {
            throw fail("LMDB's two meta pages (at least \(2 * pageSize) bytes)", "\(fileSize(fd)) bytes")
        }
        let meta1 = try Meta(second.bytes, page: 1, fail: fail)
        let (current, number) = meta1.transactionID > meta0.transactionID ? (meta1, 1) : (meta0, 0)
        let (pages, overflow) = current.lastPage.addingReportingOverflow(1)
        let (required, overflow2) = pages.multipliedReportingOverflow(by: UInt64(pageSize))
        let size = fileSize(fd)
        // LMDB may leave the last pages unwritten when they are free (allocated and released in
        // the transaction that committed, without a writable map): the file is then shorter than
        // the meta's last page, and LMDB never reads those pages. Anything else is a truncation.
        if overflow || overflow2 {
            throw fail(
                "in meta page \(number) (transaction \(current.transactionID)) a last page that a file can hold",
                "last page \(current.lastPage): the meta page is damaged")
        }
        if UInt64(size) < required
            && !FreePages(fd: fd, pageSize: pageSize, filePages: UInt64(size) / UInt64(pageSize))
                .listsAll(from: UInt64(size) / UInt64(pageSize), through: current.lastPage, root: current.freeRoot)
        {
            throw fail(
                "at least \(required) bytes (pages 0…\(current.lastPage) of \(pageSize) bytes, as meta page "
                    + "\(number) of transaction \(current.transactionID) records)",
                "\(size) bytes: the file is truncated")
        }
        return .valid
    }

    /// The size of the open file.
    static func fileSize(_ fd: Int32) -> Int {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return 0 }
        return Int(status.st_size)
    }

    /// Reads the header and meta of the page at `offset`: its bytes (fewer at the end of the
    /// file) and whether they are all zeros (or none).
    static func readMeta(_ fd: Int32, at offset: off_t, path: String) throws -> (bytes: [UInt8], isBlank: Bool) {
        var bytes = [UInt8](repeating: 0, count: metaBytes)
        let count = readFully(fd, into: &bytes, at: offset)
        if count < 0 {
            throw LMDBError(
                code: -Int32(count), operation: "reading the meta page at \(offset) of '\(path)'",
                message: String(cString: strerror(-Int32(count))))
        }
        bytes.removeSubrange(count...)
        return (bytes, bytes.allSatisfy { $0 == 0 })
    }

    /// Reads `bytes.count` bytes (fewer at the end of the file) at `offset` into `bytes`; returns
    /// how many, or the negated `errno`.
    static func readFully(_ fd: Int32, into bytes: inout [UInt8], at offset: off_t) -> Int {
        let length = bytes.count
        return bytes.withUnsafeMutableBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            var done = 0
            while done < length {
                let read = pread(fd, base + done, length - done, offset + off_t(done))
                if read < 0 {
                    if errno == EINTR { continue }
                    return -Int(errno)
                }
                if read == 0 { break }
                done += read
            }
            return done
        }
    }

    /// The fields of one meta page this check and ``PageCheck`` need.
    struct Meta {
        var pageSize: UInt32
        var lastPage: UInt64
        var transactionID: UInt64
        /// The root page of the free database (`mm_dbs[FREE_DBI].md_root`; all ones when empty).
        var freeRoot: UInt64
        /// The free database's record (`mm_dbs[FREE_DBI]`).
        var freeDatabase: DatabaseRecord
        /// The main database's record (`mm_dbs[MAIN_DBI]`).
        var mainDatabase: DatabaseRecord

        init(_ bytes: [UInt8], page: Int, fail: (String, String) -> DataFileError) throws {
            let flags = UInt16(bytes[10]) | UInt16(bytes[11]) << 8
            let magic = Self.uint32(bytes, at: pageHeaderSize)
            let version = Self.uint32(bytes, at: pageHeaderSize + 4)
            guard flags & DataFileCheck.metaFlag != 0, magic == DataFileCheck.magic else {
                throw fail(
                    "an LMDB meta page (magic 0xBEEFC0DE) at page \(page)",
                    "flags 0x\(String(flags, radix: 16)), magic 0x\(String(magic, radix: 16, uppercase: true))")
            }
            guard version == DataFileCheck.dataVersion else {
                throw fail("LMDB data version \(DataFileCheck.dataVersion) in meta page \(page)", "version \(version)")
            }
            pageSize = Self.uint32(bytes, at: pageHeaderSize + 24)
            lastPage = Self.uint64(bytes, at: pageHeaderSize + 120)
            transactionID = Self.uint64(bytes, at: pageHeaderSize + 128)
            freeRoot = Self.uint64(bytes, at: pageHeaderSize + 24 + 40)
            freeDatabase = DatabaseRecord(bytes, at: pageHeaderSize + 24)
            mainDatabase = DatabaseRecord(bytes, at: pageHeaderSize + 24 + DatabaseRecord.size)
        }

        static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
        }

        static func uint64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
            (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
        }
    }

    /// The pages the free database lists, read with `pread` (nothing is mapped): its B-tree of
    /// transaction id → page number lists (`MDB_IDL`: a count, then the page numbers), walked
    /// only on the pages within the file.
    private struct FreePages {
        let fd: Int32
        let pageSize: Int
        /// The whole pages the file holds.
        let filePages: UInt64

        static let branch: UInt16 = 0x01
        static let leaf: UInt16 = 0x02
        static let bigData: UInt16 = 0x01

        /// Whether pages `first…last` are all listed as free (and the free database's pages are
        /// all within the file).
        func listsAll(from first: UInt64, through last: UInt64, root: UInt64) -> Bool {
            guard first <= last, last - first < 1 << 20, root != UInt64.max else { return false }
            var free = Set<UInt64>()
            var pending = [root]
            var visited = 0
            while let pgno = pending.popLast() {
                visited += 1
                guard visited <= Int(clamping: filePages), let page = read(pages: pgno, count: 1) else { return false }
                let flags = UInt16(page[10]) | UInt16(page[11]) << 8
                let lower = Int(UInt16(page[12]) | UInt16(page[13]) << 8)
                guard lower >= pageHeaderSize, lower <= pageSize else { return false }
                for slot in 0..<(lower - pageHeaderSize) / 2 {
                    let at = pageHeaderSize + 2 * slot
                    let offset = Int(UInt16(page[at]) | UInt16(page[at + 1]) << 8)
                    guard offset + 8 <= pageSize else { return false }
                    let low = UInt64(UInt16(page[offset]) | UInt16(page[offset + 1]) << 8)
                    let high = UInt64(UInt16(page[offset + 2]) | UInt16(page[offset + 3]) << 8)
                    let nodeFlags = UInt16(page[offset + 4]) | UInt16(page[offset + 5]) << 8
                    let keySize = Int(UInt16(page[offset + 6]) | UInt16(page[offset + 7]) << 8)
                    if flags & Self.branch != 0 {
                        pending.append(low | high << 16 | UInt64(nodeFlags) << 32)
                        continue
                    }
                    guard flags & Self.leaf != 0 else { return false }
                    let dataAt = offset + 8 + keySize
                    let dataSize = Int(low | high << 16)
                    let data: [UInt8]
                    if nodeFlags & Self.bigData != 0 {
                        guard dataAt + 8 <= pageSize else { return false }
                        let overflow = Meta.uint64(page, at: dataAt)
                        let count = (pageHeaderSize + dataSize + pageSize - 1) / pageSize
                        // A free list of more than 64 Ki pages of ids is no list of this file's.
                        guard count <= 1 << 16 else { return false }
                        guard let pages = read(pages: overflow, count: count) else { return false }
                        data = Array(pages[pageHeaderSize..<(pageHeaderSize + dataSize)])
                    } else {
                        guard dataAt + dataSize <= pageSize else { return false }
                        data = Array(page[dataAt..<(dataAt + dataSize)])
                    }
                    guard data.count >= 8 else { continue }
                    let listed = Meta.uint64(data, at: 0)
                    guard listed <= UInt64(data.count / 8 - 1) else { return false }
                    for index in 0..<Int(listed) {
                        free.insert(Meta.uint64(data, at: 8 * (index + 1)))
                    }
                }
            }
            return (first...last).allSatisfy { free.contains($0) }
        }

        /// `count` whole pages from page `pgno`, or `nil` when they are not all in the file.
        private func read(pages pgno: UInt64, count: Int) -> [UInt8]? {
            guard count > 0, pgno < filePages, UInt64(count) <= filePages - pgno else { return nil }
            var bytes = [UInt8](repeating: 0, count: count * pageSize)
            return readFully(fd, into: &bytes, at: off_t(pgno) * off_t(pageSize)) == bytes.count ? bytes : nil
        }
    }
}
