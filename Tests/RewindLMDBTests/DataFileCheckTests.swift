import Foundation
import RewindBaseTestSupport
import Testing

@testable import RewindLMDB

/// The data file is checked against LMDB's meta pages before anything maps it: a truncated copy
/// is a typed error naming the file and both sizes, not a `SIGBUS`.
@Suite("Data file check")
struct DataFileCheckTests {
    /// An environment with enough pages that a truncation cuts some of them off; closed.
    private func filledEnvironment(options: EnvironmentOptions = []) throws -> TestDirectory {
        try TestDirectory.filledEnvironment("datafile", options: options)
    }

    private func truncate(_ directory: TestDirectory, to size: Int) throws {
        let handle = try #require(FileHandle(forWritingAtPath: directory.path + "/data.mdb"))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
    }

    private func fileSize(_ directory: TestDirectory) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.path + "/data.mdb")
        return (attributes[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test(arguments: [8192, 200_000])
    func aTruncatedDataFileIsATypedErrorNamingTheFileAndTheSizes(size: Int) throws {
        let directory = try filledEnvironment()
        defer { directory.remove() }
        #expect(try fileSize(directory) > 200_000)
        try truncate(directory, to: size)
        for options in [EnvironmentOptions(), [.writeMap], [.readOnly]] {
            let error = #expect(throws: DataFileError.self) {
                _ = try Environment(
                    directory: directory.path, configuration: EnvironmentConfiguration(options: options))
            }
            #expect(error?.path.hasSuffix("/data.mdb") == true)
            #expect(error?.found == "\(size) bytes: the file is truncated")
            #expect(error?.expected.hasPrefix("at least ") == true)
            #expect(error?.description.contains("damaged data file") == true)
            // Nothing grew it (no map reservation before the check).
            #expect(try fileSize(directory) == size)
        }
    }

    @Test func aHealthyEnvironmentWithAReservedWritableMapOpens() throws {
        let directory = try filledEnvironment(options: [.writeMap])
        defer { directory.remove() }
        for options in [EnvironmentOptions(), [.writeMap], [.readOnly]] {
            let env = try Environment(
                directory: directory.path, configuration: EnvironmentConfiguration(options: options))
            let db = try env.database(named: "things", create: false)
            #expect(try env.read { try $0.get(UInt64(1999).key, in: db) }?.count == 300)
            env.close()
        }
    }

    @Test func aDataFileThatIsNotLMDBsIsATypedError() throws {
        let directory = try filledEnvironment()
        defer { directory.remove() }
        let handle = try #require(FileHandle(forWritingAtPath: directory.path + "/data.mdb"))
        try handle.seek(toOffset: 16)
        try handle.write(contentsOf: Data("nope".utf8))
        try handle.close()
        let error = #expect(throws: DataFileError.self) { _ = try Environment(directory: directory.path) }
        #expect(error?.expected.contains("magic 0xBEEFC0DE") == true)
        #expect(error?.found.contains("magic 0x") == true)
    }

    @Test func anEmptyDataFileIsRefusedReadOnlyAndLeftEmpty() throws {
        let directory = try TestDirectory("datafile")
        defer { directory.remove() }
        #expect(FileManager.default.createFile(atPath: directory.path + "/data.mdb", contents: Data()))
        let error = #expect(throws: DataFileError.self) {
            _ = try Environment(
                directory: directory.path, configuration: EnvironmentConfiguration(options: [.readOnly]))
        }
        #expect(error?.found.contains("empty") == true)
        #expect(try fileSize(directory) == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["data.mdb"])
    }

    @Test func aReadOnlyOpenCreatesNothingAndRefusesWrites() throws {
        let directory = try filledEnvironment()
        defer { directory.remove() }
        try FileManager.default.removeItem(atPath: directory.path + "/lock.mdb")
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb"))
        let env = try Environment(
            directory: directory.path, configuration: EnvironmentConfiguration(options: [.readOnly]))
        let db = try env.database(named: "things", create: false)
        #expect(try env.read { try $0.get(UInt64(7).key, in: db) }?.first == 7)
        let error = #expect(throws: LMDBError.self) {
            try env.write { txn in try txn.put([1], forKey: [1], in: db) }
        }
        #expect(error?.code == LMDBError.Code.readOnly)
        env.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["data.mdb"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb")) == before)
        // Nothing to open read-only in an empty directory: it stays empty.
        let empty = try TestDirectory("datafile")
        defer { empty.remove() }
        #expect(throws: DataFileError.self) {
            _ = try Environment(directory: empty.path, configuration: EnvironmentConfiguration(options: [.readOnly]))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.path).isEmpty)
    }
}

extension DataFileCheckTests {
    /// The pages `mdb_stat -fff` lists as free in the environment `directory`, or `nil` when
    /// the tool is not installed.
    private func freePages(_ directory: TestDirectory) throws -> Set<Int>? {
        guard
            let tool = ["/usr/bin/mdb_stat", "/usr/local/bin/mdb_stat", "/opt/homebrew/bin/mdb_stat"]
                .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { return nil }
        let output = try runProcessBlocking(URL(fileURLWithPath: tool), arguments: ["-fff", directory.path]).stdout
        var free = Set<Int>()
        // "  Transaction 2, 198 pages, maxspan 196" then lines "     8[196]" (8…203) or "   204".
        for line in output.split(separator: "\n").prefix(while: { !$0.hasPrefix("Status of Main DB") }) {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard let first = text.first, first.isNumber else { continue }
            let parts = text.split(whereSeparator: { $0 == "[" || $0 == "]" })
            guard let start = Int(parts[0]) else { continue }
            let count = parts.count > 1 ? Int(parts[1]) ?? 1 : 1
            free.formUnion(start..<(start + count))
        }
        return free
    }

    /// LMDB never reads free pages, so a file that ends within pages its free database lists
    /// (LMDB's `mm_last_pg` comment: "the file may be shorter if the freeDB lists the final
    /// pages") opens; one that ends a page earlier, within a page in use, does not.
    @Test func aFileEndingWithinFreePagesOpensAndOneEndingWithinUsedPagesDoesNot() throws {
        let directory = try TestDirectory("datafile")
        defer { directory.remove() }
        let env = try Environment(directory: directory.path)
        let db = try env.database(named: "things")
        try env.write { txn in
            for n in 1..<600 as Range<UInt64> {
                try txn.put([UInt8](repeating: 7, count: 900), forKey: n.key, in: db)
            }
        }
        try env.write { txn in
            for n in 1..<600 as Range<UInt64> { _ = try txn.delete(n.key, in: db) }
            try txn.put([1], forKey: UInt64(0).key, in: db)
        }
        // Later writes reuse low free pages and free the high ones the delete wrote.
        for n in 1000..<1003 as Range<UInt64> {
            try env.write { txn in try txn.put([2], forKey: n.key, in: db) }
        }
        let statistics = try env.statistics()
        let lastPage = statistics.usedPages - 1
        let pageSize = statistics.pageSize
        env.close()
        guard let free = try freePages(directory) else {
            print("free pages test skipped: mdb_stat (lmdb-utils) is not installed")
            return
        }
        var end = lastPage + 1
        while free.contains(end - 1) { end -= 1 }
        try #require(end <= lastPage, "the last page is in use: nothing to cut (free pages \(free.sorted()))")
        try truncate(directory, to: end * pageSize)
        do {
            let reopened = try Environment(directory: directory.path)
            defer { reopened.close() }
            let things = try reopened.database(named: "things", create: false)
            #expect(try reopened.read { try $0.get(UInt64(0).key, in: things) } == [1])
            #expect(try reopened.read { try $0.get(UInt64(1002).key, in: things) } == [2])
        }
        try truncate(directory, to: (end - 1) * pageSize)
        let error = #expect(throws: DataFileError.self) { _ = try Environment(directory: directory.path) }
        #expect(error?.found == "\((end - 1) * pageSize) bytes: the file is truncated")
    }
}
