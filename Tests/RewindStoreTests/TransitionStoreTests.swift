import Foundation
import RewindLMDB
import RewindStore
import Testing

@Suite("Opening and reopening a store")
struct TransitionStoreTests {
    @Test func closeAndReopenKeepsRecordsHeadSequenceAndSessionHeads() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let alice = try session("alice")
        let bob = try session("bob")
        let storeID: UUID
        do {
            let store = try TransitionStore(directory: directory.path)
            storeID = store.storeID
            try store.append(onboarding, to: alice, expectedVersion: .noStream)
            try store.append(Array(onboarding.prefix(2)), to: bob, expectedVersion: .noStream)
            try store.append([step("logout", from: ["home"], to: ["login"])], to: alice, expectedVersion: .exact(3))
            store.close()
        }
        let store = try TransitionStore(directory: directory.path)
        defer { store.close() }
        #expect(store.storeID == storeID)
        #expect(store.formatVersion == StoreLayout.formatVersion)
        #expect(try store.headSequence() == 6)
        #expect(try store.sessionInfo(for: alice)?.headVersion == 4)
        #expect(try store.sessionInfo(for: alice)?.headSequence == 6)
        #expect(try store.sessionInfo(for: bob)?.headVersion == 2)
        let all = try store.records()
        #expect(all.map(\.sequence) == [1, 2, 3, 4, 5, 6])
        #expect(all.map(\.session) == [alice, alice, alice, bob, bob, alice])
        #expect(all.map(\.version) == [1, 2, 3, 1, 2, 4])
        #expect(all[0].transition == onboarding[0])
        // Appends continue the global sequence after reopening.
        let result = try store.append(
            [step("again", from: ["login"], to: ["home"])], to: bob, expectedVersion: .exact(2))
        #expect(result.firstSequence == 7)
        #expect(result.firstVersion == 3)
    }

    @Test func openingCreatesAMissingDirectory() throws {
        let parent = try TestDirectory()
        defer { parent.remove() }
        let path = parent.path + "/nested/store"
        let store = try TransitionStore(directory: path)
        defer { store.close() }
        #expect(FileManager.default.fileExists(atPath: path + "/data.mdb"))
        #expect(try store.headSequence() == 0)
    }

    @Test func aDirectoryWithOtherFilesIsNotAStoreAndStaysUntouched() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try Data("hello".utf8).write(to: URL(fileURLWithPath: directory.path + "/notes.txt"))
        let before = try directory.files()
        let error = #expect(throws: StoreError.self) { _ = try TransitionStore(directory: directory.path) }
        guard case .notAStore(let path, _, _)? = error else {
            Issue.record("expected notAStore, got \(String(describing: error))")
            return
        }
        #expect(path == directory.path)
        #expect(try directory.files() == before)
    }

    @Test func aDataFileOfZerosThatNobodyIsCreatingIsNotAStore() throws {
        // A blank first page means "being created" to the pre-check (a writable map sizes the
        // file before LMDB writes its meta pages); opening it then tells it is no store.
        let directory = try TestDirectory()
        defer { directory.remove() }
        try Data(count: 8192).write(to: URL(fileURLWithPath: directory.path + "/data.mdb"))
        let error = #expect(throws: StoreError.self) { _ = try TransitionStore(directory: directory.path) }
        guard case .notAStore(let path, _, _)? = error else {
            Issue.record("expected notAStore, got \(String(describing: error))")
            return
        }
        #expect(path == directory.path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb")) == Data(count: 8192))
    }

    @Test func anotherLMDBEnvironmentIsNotAStoreAndStaysUntouched() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        do {
            let env = try Environment(directory: directory.path)
            let db = try env.database(named: "other-app")
            try env.write { try $0.put([1], forKey: [1], in: db) }
            env.close()
        }
        try FileManager.default.removeItem(atPath: directory.path + "/lock.mdb")
        let before = try directory.files()
        let dataBefore = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb"))
        let error = #expect(throws: StoreError.self) { _ = try TransitionStore(directory: directory.path) }
        #expect(error?.description.contains("is not a Rewind store") == true)
        #expect(try directory.files() == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/data.mdb")) == dataBefore)
    }

    @Test func anEnvironmentWithOnlyTheStoresEmptyDatabasesIsAStoreBeingCreated() throws {
        // What a second process sees while the first one is between creating the store's
        // databases and writing its metadata.
        let directory = try TestDirectory()
        defer { directory.remove() }
        do {
            let env = try Environment(
                directory: directory.path, configuration: EnvironmentConfiguration(maxDatabases: 16))
            _ = try env.databases(named: [StoreLayout.log, StoreLayout.sessionIndex], create: true)
            env.close()
        }
        let store = try TransitionStore(directory: directory.path)
        defer { store.close() }
        #expect(store.formatVersion == StoreLayout.formatVersion)
        #expect(try store.headSequence() == 0)
    }

    @Test func anEnvironmentWithDataInAStoreNamedDatabaseButNoMetadataIsNotAStore() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        do {
            let env = try Environment(
                directory: directory.path, configuration: EnvironmentConfiguration(maxDatabases: 16))
            let log = try env.database(named: StoreLayout.log)
            try env.write { try $0.put([1], forKey: [1], in: log) }
            env.close()
        }
        let error = #expect(throws: StoreError.self) { _ = try TransitionStore(directory: directory.path) }
        #expect(error?.description.contains("is not a Rewind store") == true)
    }

    @Test func aDirectoryHoldingOnlyALockFileIsAStoreBeingCreated() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try Data().write(to: URL(fileURLWithPath: directory.path + "/lock.mdb"))
        let store = try TransitionStore(directory: directory.path)
        defer { store.close() }
        #expect(try store.headSequence() == 0)
    }

    @Test func aFileInsteadOfADirectoryIsNotAStore() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let file = directory.path + "/file"
        try Data().write(to: URL(fileURLWithPath: file))
        #expect(throws: StoreError.self) { _ = try TransitionStore(directory: file) }
    }

    @Test func aStoreWrittenByANewerFormatIsRefused() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        do {
            let store = try TransitionStore(directory: directory.path)
            try store.append(onboarding, to: try session("s"))
            store.close()
            // Behind the store's back: claim format 99.
            let env = try Environment(directory: directory.path)
            let meta = try env.database(named: StoreLayout.meta, create: false)
            try env.write { try $0.put([0, 0, 0, 99], forKey: StoreLayout.formatVersionKey, in: meta) }
            env.close()
        }
        let error = #expect(throws: StoreError.self) { _ = try TransitionStore(directory: directory.path) }
        #expect(error == .unsupportedFormat(found: 99, supported: StoreLayout.formatVersion))
        #expect(error?.description.contains("99") == true)
    }

    @Test func twoStoresOnOneDirectoryInOneProcessShareTheEnvironment() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let first = try TransitionStore(directory: directory.path)
        let second = try TransitionStore(directory: directory.path)
        try first.append(onboarding, to: try session("a"))
        #expect(try second.headSequence() == 3)
        #expect(second.storeID == first.storeID)
        first.close()
        try second.append(onboarding, to: try session("b"))
        #expect(try second.headSequence() == 6)
        second.close()
    }

    @Test func aClosedStoreThrows() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let store = try TransitionStore(directory: directory.path)
        store.close()
        #expect(throws: LMDBError.self) { _ = try store.headSequence() }
    }
}
