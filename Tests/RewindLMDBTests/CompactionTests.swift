import CLMDB
import Foundation
import RewindLMDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `Environment.compact(headroom:progress:)`: LMDB's compacting copy replaces the data file, the
/// open handles go on with the new file; the map grows by bounded steps.
struct CompactionTests {
    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    static func inode(_ path: String) -> UInt64 {
        var status = stat()
        return stat(path, &status) == 0 ? UInt64(status.st_ino) : 0
    }

    /// LMDB neither clears a page it reuses nor copies pages without their unused bytes: a large
    /// value written into pages that held deleted values keeps those values after its end. The
    /// compacted file has none of them.
    @Test(arguments: [EnvironmentOptions.writeMap, []])
    func theCompactedFileHoldsNoByteOfADeletedValue(options: EnvironmentOptions) throws {
        let directory = try TestDirectory("compact-scrub")
        defer { directory.remove() }
        let env = try Environment(
            directory: directory.path, configuration: EnvironmentConfiguration(mapSize: 16 << 20, options: options))
        defer { env.close() }
        let db = try env.database(named: "things")
        let marker = Array("DELETEDVALUE".utf8)
        try env.write { txn in
            for n in 0..<200 as Range<UInt64> {
                try txn.put(Array(repeating: marker, count: 20).flatMap { $0 }, forKey: n.key, in: db)
            }
        }
        try env.write { txn in
            for n in 0..<200 as Range<UInt64> { try txn.delete(n.key, in: db) }
        }
        // Later transactions reuse the freed pages for large values (overflow pages) and small ones.
        for round in 0..<8 as Range<UInt64> {
            try env.write { txn in
                try txn.put(
                    [UInt8](repeating: 0x61, count: 2_100 + 300 * Int(round)), forKey: (1_000 + round).key, in: db)
                try txn.put([1, 2, 3], forKey: (2_000 + round).key, in: db)
            }
        }
        _ = try env.compact(headroom: 0)
        let file = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb"))
        #expect(file.range(of: Data(marker)) == nil)
        let (large, small) = try env.read { txn in
            (try txn.get((1_007 as UInt64).key, in: db), try txn.get((2_003 as UInt64).key, in: db))
        }
        #expect(large?.count == 2_100 + 2_100)
        #expect(small == [1, 2, 3])
    }

    @Test func theCompactedFileHoldsThePagesInUsePlusTheHeadroomAndEveryValue() throws {
        let directory = try TestDirectory("compact")
        defer { directory.remove() }
        let dataFile = directory.path + "/data.mdb"
        let env = try Environment(
            directory: directory.path, configuration: EnvironmentConfiguration(mapSize: 16 << 20, options: .writeMap))
        defer { env.close() }
        let db = try env.database(named: "things")
        let other = try env.database(named: "other")
        try env.write { txn in
            for n in 0..<4_000 as Range<UInt64> {
                try txn.put([UInt8](repeating: UInt8(truncatingIfNeeded: n), count: 1_000), forKey: n.key, in: db)
            }
        }
        // Free most of it: the pages go to LMDB's free list, the file keeps its length.
        try env.write { txn in
            for n in 0..<4_000 as Range<UInt64> where n % 10 != 0 { try txn.delete(n.key, in: db) }
            try txn.put([7], forKey: [7], in: other)
        }
        let before = Self.fileSize(dataFile)
        #expect(before == 16 << 20)
        let oldInode = Self.inode(dataFile)
        var steps: [CompactionStep] = []
        let result = try env.compact(headroom: 256 << 10) { steps.append($0) }
        #expect(steps == [.copying, .copied, .replaced])
        #expect(result.bytesBefore == before)
        #expect(result.liveBytes < before / 4, "\(result)")
        #expect(result.liveBytes % 4096 == 0)
        // With a writable map the file is the map: the pages in use plus the headroom.
        #expect(result.mapSize == result.liveBytes + (256 << 10))
        #expect(result.bytesAfter == result.mapSize)
        #expect(Self.fileSize(dataFile) == result.bytesAfter)
        #expect(Self.inode(dataFile) != oldInode)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/data.mdb.compacting"))

        // The same handles read the same values and write on.
        let kept = Array(stride(from: 0, to: 4_000, by: 10) as StrideTo<UInt64>)
        let values = try env.read { txn in try kept.map { try txn.get($0.key, in: db) } }
        #expect(values == kept.map { [UInt8](repeating: UInt8(truncatingIfNeeded: $0), count: 1_000) })
        #expect(try env.read { try $0.get(UInt64(1).key, in: db) } == nil)
        #expect(try env.read { try $0.get([7], in: other) } == [7])
        try env.write { txn in
            for n in 5_000..<6_000 as Range<UInt64> { try txn.put([1, 2, 3], forKey: n.key, in: db) }
        }
        #expect(try env.read { try $0.get(UInt64(5_999).key, in: db) } == [1, 2, 3])
        // A second handle of the directory sees it too, and a reopen finds everything.
        let second = try Environment(directory: directory.path)
        #expect(try second.read { try $0.get(UInt64(5_999).key, in: db) } == [1, 2, 3])
        second.close()
    }

    @Test func compactionNeverLengthensTheFile() throws {
        let directory = try TestDirectory("compact")
        defer { directory.remove() }
        let env = try Environment(
            directory: directory.path, configuration: EnvironmentConfiguration(mapSize: 1 << 20, options: .writeMap))
        defer { env.close() }
        let db = try env.database(named: "things")
        try env.write { try $0.put([1], forKey: [1], in: db) }
        let result = try env.compact(headroom: 64 << 20)
        #expect(result.bytesAfter <= result.bytesBefore, "\(result)")
        #expect(result.bytesAfter >= result.liveBytes)
        #expect(try env.read { try $0.get([1], in: db) } == [1])
    }

    @Test func aLeftoverCopyIsRemovedByTheNextWritableOpenAndIgnoredByReads() throws {
        let directory = try TestDirectory("compact")
        defer { directory.remove() }
        do {
            let env = try Environment(directory: directory.path)
            let db = try env.database(named: "things")
            try env.write { try $0.put([1], forKey: [1], in: db) }
            env.close()
        }
        let leftover = directory.path + "/data.mdb.compacting"
        try Data(repeating: 0xAB, count: 10_000).write(to: URL(fileURLWithPath: leftover))
        try Environment.inspect(directory: directory.path) { env in
            let db = try env.database(named: "things", create: false)
            #expect(try env.read { try $0.get([1], in: db) } == [1])
        }
        #expect(FileManager.default.fileExists(atPath: leftover))
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        #expect(!FileManager.default.fileExists(atPath: leftover))
        let db = try env.database(named: "things", create: false)
        #expect(try env.read { try $0.get([1], in: db) } == [1])
    }

    @Test func compactingInsideATransactionOrReadOnlyThrowsAndChangesNothing() throws {
        let directory = try TestDirectory.filledEnvironment("compact", options: .writeMap)
        defer { directory.remove() }
        let inode = Self.inode(directory.path + "/data.mdb")
        do {
            let reader = try Environment(
                directory: directory.path, configuration: EnvironmentConfiguration(options: .readOnly))
            defer { reader.close() }
            #expect(throws: CompactionError.readOnly(path: reader.path)) { try reader.compact() }
        }
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        #expect(throws: LMDBError.self) {
            try env.read { _ in try env.compact() }
        }
        #expect(Self.inode(directory.path + "/data.mdb") == inode)
        let db = try env.database(named: "things", create: false)
        #expect(try env.read { try $0.get(UInt64(1).key, in: db) }?.count == 300)
    }

    @Test func theMapGrowsByAtMostTheHeadroomOnceItIsLarger() throws {
        let directory = try TestDirectory("compact")
        defer { directory.remove() }
        let env = try Environment(
            directory: directory.path,
            configuration: EnvironmentConfiguration(mapSize: 64 << 10, mapHeadroom: 256 << 10, options: .writeMap))
        defer { env.close() }
        let db = try env.database(named: "things")
        var sizes = [try env.statistics().mapSize]
        var key: UInt64 = 0
        while sizes.last! < 2 << 20 {
            try env.write { txn in
                for _ in 0..<16 {
                    key += 1
                    try txn.put([UInt8](repeating: 0x5A, count: 1_000), forKey: key.key, in: db)
                }
            }
            let size = try env.statistics().mapSize
            if size != sizes.last { sizes.append(size) }
        }
        let steps = zip(sizes.dropFirst(), sizes).map { $0 - $1 }
        // 64 → 128 → 256 KiB (doubling), then 256 KiB at a time.
        #expect(Array(sizes.prefix(3)) == [64 << 10, 128 << 10, 256 << 10], "\(sizes)")
        #expect(steps.allSatisfy { $0 <= 256 << 10 }, "\(sizes)")
        #expect(steps.dropFirst(2).allSatisfy { $0 == 256 << 10 }, "\(sizes)")
    }
}
