import Foundation
import Testing

@testable import RewindLMDB

@Suite("Environment")
struct EnvironmentTests {
    @Test func valuesWrittenInOneOpenAreReadAfterReopening() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        do {
            let env = try Environment(directory: directory.path)
            let db = try env.database(named: "things")
            try env.write { txn in try txn.put(Array("one".utf8), forKey: [1], in: db) }
            env.close()
        }
        #expect(FileManager.default.fileExists(atPath: directory.path + "/data.mdb"))
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        let db = try env.database(named: "things", create: false)
        let value = try env.read { txn in try txn.get([1], in: db) }
        #expect(value == Array("one".utf8))
    }

    @Test func openingAMissingDirectoryThrowsAnErrorNamingThePath() throws {
        let missing = "/tmp/rewind-missing-\(UUID().uuidString)"
        let error = #expect(throws: LMDBError.self) { _ = try Environment(directory: missing) }
        #expect(error?.description.contains(missing) == true)
    }

    @Test func openingAMissingDatabaseWithoutCreateThrowsNotFound() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        let error = #expect(throws: LMDBError.self) { _ = try env.database(named: "absent", create: false) }
        #expect(error?.isNotFound == true)
    }

    @Test func secondOpenOfTheSameDirectorySharesTheEnvironment() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let first = try Environment(directory: directory.path)
        // Another spelling of the same directory resolves to the same canonical path.
        let second = try Environment(directory: directory.path + "/./")
        #expect(first.shared === second.shared)
        let db = try first.database(named: "shared")
        try first.write { txn in try txn.put([42], forKey: [1], in: db) }
        first.close()
        // The environment stays open while the second handle is.
        #expect(Environment.isOpen(directory: directory.path))
        let value = try second.read { txn in try txn.get([1], in: db) }
        #expect(value == [42])
        second.close()
        #expect(!Environment.isOpen(directory: directory.path))
    }

    @Test func aClosedHandleThrowsInsteadOfTouchingLMDB() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(directory: directory.path)
        env.close()
        env.close()  // harmless
        let error = #expect(throws: LMDBError.self) { try env.read { _ in } }
        #expect(error?.code == LMDBError.Code.invalidArgument)
        #expect(error?.message.contains("closed") == true)
    }

    @Test func statisticsReportMapSizeUsedPagesAndNamedDatabases() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(directory: directory.path, configuration: EnvironmentConfiguration(mapSize: 1 << 20))
        defer { env.close() }
        let before = try env.statistics()
        #expect(before.mapSize == 1 << 20)
        #expect(before.entries == 0)
        let a = try env.database(named: "a")
        _ = try env.database(named: "b")
        try env.write { txn in
            for i in 0..<200 as Range<UInt64> { try txn.put([UInt8](repeating: 7, count: 100), forKey: i.key, in: a) }
        }
        let after = try env.statistics()
        #expect(after.entries == 2)
        #expect(after.usedPages > before.usedPages)
        #expect(after.lastTransactionID > before.lastTransactionID)
        let dbStats = try env.read { try $0.statistics(of: a) }
        #expect(dbStats.entries == 200)
    }

    @Test func noSyncEnvironmentsKeepCommitsVisibleAndSyncOnDemand() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(
            directory: directory.path,
            configuration: EnvironmentConfiguration(options: [.noSync, .noMetaSync]))
        let db = try env.database(named: "fast")
        try env.write { txn in try txn.put([1, 2, 3], forKey: [9], in: db) }
        try env.sync(force: true)
        env.close()
        let reopened = try Environment(directory: directory.path)
        defer { reopened.close() }
        // A handle of the closed environment is refused, not passed to LMDB.
        let stale = #expect(throws: LMDBError.self) { _ = try reopened.read { try $0.get([9], in: db) } }
        #expect(stale?.message.contains("another (or a closed) environment") == true)
        let reopenedDB = try reopened.database(named: "fast", create: false)
        let value = try reopened.read { try $0.get([9], in: reopenedDB) }
        #expect(value == [1, 2, 3])
    }

    /// A directory holding a closed environment whose database "x" maps [1] to [1].
    func directoryWithOneKey() throws -> TestDirectory {
        let directory = try TestDirectory()
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        let db = try env.database(named: "x")
        try env.write { try $0.put([1], forKey: [1], in: db) }
        return directory
    }

    @Test func inspectingADirectoryCreatesNoLockFile() throws {
        let directory = try directoryWithOneKey()
        defer { directory.remove() }
        try FileManager.default.removeItem(atPath: directory.path + "/lock.mdb")
        let value = try Environment.inspect(directory: directory.path) { env in
            let db = try env.database(named: "x", create: false)
            return try env.read { try $0.get([1], in: db) }
        }
        #expect(value == [1])
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/lock.mdb"))
    }

    @Test func inspectingWhileSharingTheLockRegistersItsReadsAndCreatesNoFile() throws {
        // With the lock file of an environment some process opened, an inspection's read
        // transactions take reader slots (so a writer cannot reuse the pages they read); a
        // lock-free inspection's do not.
        let directory = try directoryWithOneKey()
        defer { directory.remove() }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        func readersDuringARead(sharingLock: Bool) throws -> Int {
            try Environment.inspect(directory: directory.path, sharingLock: sharingLock) { env in
                let db = try env.database(named: "x", create: false)
                return try env.read { txn in
                    #expect(try txn.get([1], in: db) == [1])
                    return try env.statistics().readersInUse
                }
            }
        }
        #expect(try readersDuringARead(sharingLock: true) >= 1)
        #expect(try readersDuringARead(sharingLock: false) == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == files)
    }
}
