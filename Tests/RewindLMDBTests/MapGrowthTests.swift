import Foundation
import RewindBaseTestSupport
import RewindLMDB
import Testing

@Suite("Map growth")
struct MapGrowthTests {
    @Test func writesFarPastATinyMapGrowItAndRetryTheClosure() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(
            directory: directory.path,
            configuration: EnvironmentConfiguration(mapSize: 64 << 10))
        defer { env.close() }
        let db = try env.database(named: "big")
        let value = [UInt8](repeating: 0x5A, count: 4096)
        var runs = 0
        var commits = 0
        for batch in 0..<16 as Range<UInt64> {
            try env.write { txn in
                runs += 1
                for i in 0..<32 as Range<UInt64> { try txn.put(value, forKey: (batch * 32 + i).key, in: db) }
            }
            commits += 1
        }
        let stats = try env.statistics()
        #expect(stats.mapSize > 2 << 20)  // 2 MiB of values do not fit in 64 KiB
        #expect(runs > commits)  // at least one closure ran again after growing
        let entries = try env.read { try $0.statistics(of: db).entries }
        #expect(entries == 512)
    }

    @Test func aWriteThatSwallowsMapFullIsStillRetried() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(
            directory: directory.path,
            configuration: EnvironmentConfiguration(mapSize: 64 << 10))
        defer { env.close() }
        let db = try env.database(named: "big")
        var runs = 0
        try env.write { txn in
            runs += 1
            for i in 0..<64 as Range<UInt64> {
                do { try txn.put([UInt8](repeating: 1, count: 4096), forKey: i.key, in: db) } catch {}
            }
        }
        #expect(runs > 1)
        #expect(try env.read { try $0.statistics(of: db).entries } == 64)
    }

    @Test func aWriteBeyondTheMaximumMapSizeFailsClearly() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(
            directory: directory.path,
            configuration: EnvironmentConfiguration(mapSize: 64 << 10, maximumMapSize: 256 << 10))
        defer { env.close() }
        let db = try env.database(named: "big")
        let error = #expect(throws: LMDBError.self) {
            try env.write { txn in
                for i in 0..<256 as Range<UInt64> {
                    try txn.put([UInt8](repeating: 1, count: 4096), forKey: i.key, in: db)
                }
            }
        }
        #expect(error?.isMapFull == true)
        #expect(error?.message.contains("maximum map size") == true)
        #expect(try env.statistics().mapSize == 256 << 10)
        #expect(try env.read { try $0.statistics(of: db).entries } == 0)
    }
}

@Suite("Map resized by another process")
struct MapResizedTests {
    static let mdbLoad = "/usr/bin/mdb_load"

    /// Another process (LMDB's `mdb_load`, from lmdb-utils) writes past this process's map; the
    /// next transaction here gets `MDB_MAP_RESIZED`, adopts the new size and goes on.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: mdbLoad), "needs lmdb-utils' mdb_load"))
    func aMapGrownByAnotherProcessIsAdopted() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(directory: directory.path, configuration: EnvironmentConfiguration(mapSize: 64 << 10))
        defer { env.close() }
        let mine = try env.database(named: "mine")
        try env.write { try $0.put([1], forKey: [1], in: mine) }

        let value = String(repeating: "ab", count: 256 << 10)  // 256 KiB, four times our map
        let dump =
            "VERSION=3\nformat=bytevalue\ntype=btree\nmapsize=\(4 << 20)\nHEADER=END\n 6b6579\n \(value)\nDATA=END\n"
        let dumpPath = directory.path + "/../\(UUID().uuidString).dump"
        try Data(dump.utf8).write(to: URL(fileURLWithPath: dumpPath))
        defer { try? FileManager.default.removeItem(atPath: dumpPath) }
        let load = try runProcessBlocking(
            URL(fileURLWithPath: Self.mdbLoad), arguments: ["-f", dumpPath, "-s", "theirs", directory.path])
        try #require(load.status == 0, "\(load)")

        let theirs = try env.database(named: "theirs", create: false)
        let count = try env.read { try $0.withValue(forKey: Array("key".utf8), in: theirs) { $0.count } }
        #expect(count == 256 << 10)
        #expect(try env.statistics().mapSize == 4 << 20)
        try env.write { try $0.put([2], forKey: [2], in: mine) }
        #expect(try env.read { try $0.get([2], in: mine) } == [2])
    }
}
