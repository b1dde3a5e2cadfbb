import Foundation
import RewindLMDB
import RewindStore
import Testing

/// `TransitionStore.check`: the first inconsistency of the log, the sessions or the index, with
/// its location; a consistent store's counts.
@Suite("Store check")
struct StoreCheckTests {
    /// Session `s` with 40 versions (a full index block and 8 in its entry), `t` with 3.
    private func fill(_ store: TransitionStore) throws {
        let steps = (0..<40).map { step("e\($0)", from: ["a"], to: ["b\($0)"]) }
        try store.append(steps, to: try session("s"))
        try store.append(Array(steps.prefix(3)), to: try session("t"))
    }

    /// Changes the store's raw LMDB databases through another handle on its directory.
    private func tamper(_ directory: TestDirectory, _ body: (Environment, WriteTransaction) throws -> Void) throws {
        let env = try Environment(directory: directory.path)
        defer { env.close() }
        _ = try env.databases(named: StoreLayout.allDatabases, create: false)
        try env.write { txn in try body(env, txn) }
    }

    @Test func aConsistentStoreIsReportedWithItsCounts() throws {
        try withStore { store, _ throws in
            try fill(store)
            var stages: [StoreCheckProgress.Stage] = []
            let report = try store.check { progress in
                if stages.last != progress.stage { stages.append(progress.stage) }
            }
            #expect(report.isConsistent, "\(report)")
            #expect(report.records == 43)
            #expect(report.sessions == 2)
            #expect(stages == [.log, .sessions])
        }
    }

    @Test func aCorruptedRecordByteIsReportedAtItsSequence() throws {
        try withStore { store, directory throws in
            try fill(store)
            try tamper(directory) { env, txn in
                let log = try env.database(named: StoreLayout.log, create: false)
                var bytes = try #require(try txn.get(StoreKey.uint64(17), in: log))
                bytes[bytes.count / 2] ^= 0x40
                try txn.put(bytes, forKey: StoreKey.uint64(17), in: log)
            }
            let problem = try #require(try store.check().problem)
            #expect(problem.location == "log sequence 17")
            #expect(problem.reason.contains("checksum"))
        }
    }

    @Test func aGapInTheLogIsReportedAtTheMissingSequence() throws {
        try withStore { store, directory throws in
            try fill(store)
            try tamper(directory) { env, txn in
                _ = try txn.delete(StoreKey.uint64(20), in: try env.database(named: StoreLayout.log, create: false))
            }
            let problem = try #require(try store.check().problem)
            #expect(problem.location == "log sequence 20")
            #expect(problem.reason.contains("from sequence 19 to 21"))
        }
    }

    @Test func aDeletedIndexBlockIsReportedWithItsSessionAndVersion() throws {
        try withStore { store, directory throws in
            try fill(store)
            try tamper(directory) { env, txn in
                let index = try env.database(named: StoreLayout.sessionIndex, create: false)
                _ = try txn.delete(StoreKey.compound("s", 1), in: index)
            }
            let problem = try #require(try store.check().problem)
            #expect(problem.location.contains("session-index"))
            #expect(problem.location.contains("'s' version 1"))
        }
    }

    @Test func anIndexEntryPointingAtAnotherRecordIsReported() throws {
        try withStore { store, directory throws in
            try fill(store)
            try tamper(directory) { env, txn in
                let index = try env.database(named: StoreLayout.sessionIndex, create: false)
                var block = try #require(try txn.get(StoreKey.compound("s", 1), in: index))
                withUnsafeBytes(of: UInt64(41).bigEndian) { block.replaceSubrange(16..<24, with: $0) }
                try txn.put(block, forKey: StoreKey.compound("s", 1), in: index)
            }
            let problem = try #require(try store.check().problem)
            #expect(problem.description.contains("'s' version 3"))
        }
    }

    @Test func aDeletedSessionEntryIsReported() throws {
        // Every entry written out (no tail), so the deleted entry is not made up from the log.
        var configuration = StoreConfiguration()
        configuration.maximumSessionTail = 0
        try withStore(configuration: configuration) { store, directory throws in
            try fill(store)
            try tamper(directory) { env, txn in
                _ = try txn.delete(Array("t".utf8), in: try env.database(named: StoreLayout.sessions, create: false))
            }
            let problem = try #require(try store.check().problem)
            #expect(problem.location == "database 'sessions' entry 't'")
            #expect(problem.reason.contains("missing"))
        }
    }
}

/// A store opened read-only creates, migrates and writes nothing.
@Suite("Read-only store")
struct ReadOnlyStoreTests {
    private var readOnly: StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.readOnly = true
        return configuration
    }

    @Test func aMissingOrEmptyDirectoryIsNotAStoreAndIsNotCreated() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let missing = directory.path + "/missing"
        #expect(throws: StoreError.self) { _ = try TransitionStore(directory: missing, configuration: readOnly) }
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(throws: StoreError.self) { _ = try TransitionStore(directory: directory.path, configuration: readOnly) }
        #expect(try directory.files().isEmpty)
    }

    @Test func anExistingStoreIsReadAndWritesAreRefused() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        do {
            let store = try TransitionStore(directory: directory.path)
            try store.append(onboarding, to: try session("s"))
            store.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb"))
        let store = try TransitionStore(directory: directory.path, configuration: readOnly)
        defer { store.close() }
        #expect(try store.records(of: try session("s")).map(\.event) == ["start", "continue", "loggedIn"])
        #expect(try store.check().isConsistent)
        let error = #expect(throws: LMDBError.self) { try store.append(onboarding, to: try session("u")) }
        #expect(error?.code == LMDBError.Code.readOnly)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb")) == before)
    }
}
