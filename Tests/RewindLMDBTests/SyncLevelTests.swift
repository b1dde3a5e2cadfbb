import CLMDB
import Foundation
import Testing

@testable import RewindLMDB

/// How commits flush (`MDB_NOSYNC`, `MDB_NOMETASYNC`, neither) reaches LMDB, and what happens when
/// handles of one directory in one process ask for different levels: the strongest applies.
@Suite("Sync levels")
struct SyncLevelTests {
    static func configuration(_ options: EnvironmentOptions) -> EnvironmentConfiguration {
        EnvironmentConfiguration(mapSize: 1 << 20, options: options.union(.writeMap))
    }

    /// LMDB's own flags, read with `mdb_env_get_flags`.
    static func lmdbFlags(_ environment: Environment) -> UInt32 {
        var flags: UInt32 = 0
        mdb_env_get_flags(environment.shared.pointer, &flags)
        return flags & UInt32(MDB_NOSYNC | MDB_NOMETASYNC)
    }

    @Test(arguments: [
        (EnvironmentOptions(), UInt32(0)),
        (.noMetaSync, UInt32(MDB_NOMETASYNC)),
        (.noSync, UInt32(MDB_NOSYNC)),
    ])
    func eachLevelReachesLMDBsFlags(options: EnvironmentOptions, flags: UInt32) throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let environment = try Environment(directory: directory.path, configuration: Self.configuration(options))
        defer { environment.close() }
        #expect(Self.lmdbFlags(environment) == flags)
        #expect(try environment.syncOptions == options)
    }

    @Test func theStrongestLevelOfTheOpenWritableHandlesApplies() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let noSync = try Environment(directory: directory.path, configuration: Self.configuration(.noSync))
        defer { noSync.close() }
        let things = try noSync.database(named: "things")
        try noSync.write { try $0.put([1], forKey: [1], in: things) }
        #expect(try noSync.syncOptions == .noSync)

        let oneFlush = try Environment(directory: directory.path, configuration: Self.configuration(.noMetaSync))
        #expect(try noSync.syncOptions == .noMetaSync)
        #expect(Self.lmdbFlags(noSync) == UInt32(MDB_NOMETASYNC))

        // A read-only handle writes nothing, so its (durable) configuration asks for nothing.
        var readOnlyConfiguration = EnvironmentConfiguration(mapSize: 1 << 20)
        readOnlyConfiguration.options = .readOnly
        let reader = try Environment(directory: directory.path, configuration: readOnlyConfiguration)
        #expect(try noSync.syncOptions == .noMetaSync)

        let durable = try Environment(directory: directory.path, configuration: Self.configuration([]))
        #expect(try noSync.syncOptions == [])
        #expect(Self.lmdbFlags(noSync) == 0)
        try oneFlush.write { try $0.put([2], forKey: [2], in: things) }

        // The strongest handle closing lets the others' strongest level apply again.
        durable.close()
        #expect(try noSync.syncOptions == .noMetaSync)
        reader.close()
        #expect(try noSync.syncOptions == .noMetaSync)
        oneFlush.close()
        #expect(try noSync.syncOptions == .noSync)
        #expect(Self.lmdbFlags(noSync) == UInt32(MDB_NOSYNC))
        #expect(try noSync.read { try [$0.get([1], in: things), $0.get([2], in: things)] } == [[1], [2]])
    }

    @Test func aStrongerLevelAskedForFromInsideATransactionIsRefusedAndAskedForNothing() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let noSync = try Environment(directory: directory.path, configuration: Self.configuration(.noSync))
        defer { noSync.close() }
        try noSync.read { _ in
            // Changing LMDB's flags waits for every transaction: from inside one it would deadlock.
            let error = #expect(throws: LMDBError.self) {
                _ = try Environment(directory: directory.path, configuration: Self.configuration([]))
            }
            #expect(error?.description.contains("changing how commits flush") == true)
            // The same level needs no change.
            let same = try Environment(directory: directory.path, configuration: Self.configuration(.noSync))
            same.close()
        }
        // The refused open left no request behind: a weaker open does not find a durable one.
        let oneFlush = try Environment(directory: directory.path, configuration: Self.configuration(.noMetaSync))
        #expect(try noSync.syncOptions == .noMetaSync)
        oneFlush.close()
        #expect(try noSync.syncOptions == .noSync)
    }
}
