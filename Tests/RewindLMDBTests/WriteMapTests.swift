import Foundation
import RewindLMDB
import Testing

/// `EnvironmentOptions.writeMap` (`MDB_WRITEMAP`): the same transactions, written into the map.
@Suite("Writable map")
struct WriteMapTests {
    @Test func writesThroughTheMapGrowItAndSurviveReopeningWithAndWithoutSync() throws {
        for options in [EnvironmentOptions.writeMap, [.writeMap, .noSync]] {
            let directory = try TestDirectory()
            defer { directory.remove() }
            let value = [UInt8](repeating: 0xA5, count: 4096)
            do {
                let env = try Environment(
                    directory: directory.path,
                    configuration: EnvironmentConfiguration(mapSize: 64 << 10, options: options))
                let db = try env.database(named: "big")
                var runs = 0
                for batch in 0..<16 as Range<UInt64> {
                    try env.write { txn in
                        runs += 1
                        for i in 0..<32 as Range<UInt64> { try txn.put(value, forKey: (batch * 32 + i).key, in: db) }
                    }
                }
                #expect(runs > 16)  // the map grew and closures ran again
                // An aborted write leaves nothing behind, in the map either.
                struct Abort: Error {}
                #expect(throws: Abort.self) {
                    try env.write { txn in
                        try txn.put([1, 2, 3], forKey: UInt64(9_999).key, in: db)
                        throw Abort()
                    }
                }
                #expect(try env.read { try $0.get(UInt64(9_999).key, in: db) } == nil)
                if options.contains(.noSync) { try env.sync(force: true) }
                env.close()
            }
            let reopened = try Environment(directory: directory.path)  // without a writable map
            defer { reopened.close() }
            let db = try reopened.database(named: "big", create: false)
            let (entries, sample) = try reopened.read { txn in
                (try txn.statistics(of: db).entries, try txn.get(UInt64(300).key, in: db))
            }
            #expect(entries == 512)
            #expect(sample == value)
        }
    }

    @Test func readOnlyIgnoresTheWritableMap() throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        do {
            let env = try Environment(directory: directory.path)
            let db = try env.database(named: "d")
            try env.write { try $0.put([7], forKey: [1], in: db) }
            env.close()
        }
        let env = try Environment(
            directory: directory.path, configuration: EnvironmentConfiguration(options: [.readOnly, .writeMap]))
        defer { env.close() }
        let db = try env.database(named: "d", create: false)
        #expect(try env.read { try $0.get([1], in: db) } == [7])
    }
}

#if os(Linux)
    import Glibc

    /// The writable map is reserved on disk: no sparse hole a full disk could not fill.
    @Suite("Writable map reservation")
    struct WriteMapReservationTests {
        func allocatedBytes(_ path: String) -> Int {
            var status = stat()
            return stat(path, &status) == 0 ? Int(status.st_blocks) * 512 : -1
        }

        @Test func theWholeMapIsReservedWhenOpenedAndBeforeItGrows() throws {
            let directory = try TestDirectory()
            defer { directory.remove() }
            let env = try Environment(
                directory: directory.path,
                configuration: EnvironmentConfiguration(mapSize: 128 << 10, options: .writeMap))
            defer { env.close() }
            let data = directory.path + "/data.mdb"
            #expect(allocatedBytes(data) >= 128 << 10)
            let db = try env.database(named: "d")
            let value = [UInt8](repeating: 1, count: 2048)
            for batch in 0..<8 as Range<UInt64> {
                try env.write { txn in
                    for i in 0..<64 as Range<UInt64> { try txn.put(value, forKey: (batch * 64 + i).key, in: db) }
                }
            }
            let mapSize = try env.statistics().mapSize
            #expect(mapSize > 1 << 20)
            #expect(allocatedBytes(data) >= mapSize)
        }
    }
#endif
