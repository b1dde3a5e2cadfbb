import Testing
import RewindLMDB

@Suite("Map growth")
struct MapGrowthTests {
    @Test func writesFarPastATinyMapGrowItAndRetryTheClosure() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let env = try Environment(directory: directory.path,
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
        let env = try Environment(directory: directory.path,
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
                for i in 0..<256 as Range<UInt64> { try txn.put([UInt8](repeating: 1, count: 4096), forKey: i.key, in: db) }
            }
        }
        #expect(error?.isMapFull == true)
        #expect(error?.message.contains("maximum map size") == true)
        #expect(try env.statistics().mapSize == 256 << 10)
        #expect(try env.read { try $0.statistics(of: db).entries } == 0)
    }
}
