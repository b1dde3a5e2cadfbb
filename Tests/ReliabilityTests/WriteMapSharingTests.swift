#if os(Linux)
    import Foundation
    import Glibc
    import Rewind
    import RewindLMDB
    import RewindTestSupport
    import Testing

    /// Several processes on one store with writable maps: a process that opens the store never
    /// shrinks the data file under another process's larger map (with `MDB_WRITEMAP` LMDB sizes the
    /// file to the map it opens with, and a write into a mapped page past the end of the file kills
    /// the process with `SIGBUS`).
    struct WriteMapSharingTests {
        static func key(_ number: UInt64) -> [UInt8] { withUnsafeBytes(of: number.bigEndian) { Array($0) } }

        func fileSize(_ path: String) -> Int {
            var status = stat()
            return stat(path, &status) == 0 ? Int(status.st_size) : -1
        }

        func append(_ count: Int, to store: TransitionStore, from first: Int) throws {
            let payload = [UInt8](repeating: 0x5A, count: 2_000)
            try store.write { transaction in
                for index in first..<(first + count) {
                    let transition = TransitionDraft(
                        machine: "m", definition: "d", event: "e", source: ["a"], target: ["b"], navigation: [],
                        payload: payload, stateData: [])
                    try transaction.append([transition], to: try SessionID("s\(index % 7)"))
                }
            }
        }

        static let value = [UInt8](repeating: 0x3C, count: 4096)

        /// Grows this process's map (to four times 256 KiB or more) in a write that then fails, so
        /// nothing is committed; returns the grown map size.
        func growMapWithoutCommitting(_ environment: Environment, _ database: Database) throws -> Int {
            struct GiveUp: Error {}
            #expect(throws: GiveUp.self) {
                try environment.write { txn in
                    for key in 0..<150 as Range<UInt64> { try txn.put(Self.value, forKey: Self.key(key), in: database) }
                    throw GiveUp()
                }
            }
            return try environment.statistics().mapSize
        }

        /// Writes into the map until 90 % of `mapSize` is used: a data file shorter than the map
        /// would make these writes crash the process (`SIGBUS`).
        func fill(_ environment: Environment, _ database: Database, upTo mapSize: Int) throws {
            var key: UInt64 = 1_000
            while try environment.statistics().usedPages * environment.statistics().pageSize < mapSize * 9 / 10 {
                try environment.write { txn in
                    for _ in 0..<16 {
                        key += 1
                        try txn.put(Self.value, forKey: Self.key(key), in: database)
                    }
                }
            }
        }

        @Test(.hangGuard)
        func aProcessOpeningWithASmallerMapDoesNotShrinkTheFileUnderAnotherProcesssMap() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let small = 256 << 10
            let store = try TransitionStore(
                directory: directory.path,
                configuration: StoreConfiguration(environment: EnvironmentConfiguration(mapSize: small)))
            defer { store.close() }
            // Grow this process's map well past the small one, keeping the data below the grown map.
            var written = 0
            while try store.statistics().mapSize < 2 << 20 {
                try append(50, to: store, from: written)
                written += 50
            }
            let grown = try store.statistics()
            #expect(grown.usedPages * grown.pageSize < grown.mapSize)
            let dataFile = directory.path + "/data.mdb"
            #expect(fileSize(dataFile) >= grown.mapSize)

            // Another process opens the store configured with the small map, then closes it.
            let other = try HelperProcess(["open", directory.path, String(small)])
            let status = try await other.waitForExit()
            #expect(status.reason == .exit && status.code == 0, "\(other.lines)")

            // The data file still covers this process's whole map: writing into the rest of it is
            // safe (a shorter file would make the writes below crash this process).
            try #require(fileSize(dataFile) >= grown.mapSize, "the data file shrank under this process's map")
            while try store.statistics().usedPages * grown.pageSize < grown.mapSize * 9 / 10 {
                try append(50, to: store, from: written)
                written += 50
            }
            #expect(try store.read { try $0.headSequence() } == UInt64(written))
        }

        @Test(.hangGuard)
        func aProcessGrowingItsSmallerMapDoesNotShrinkTheFileUnderAnotherProcesssLargerMap() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let small = 256 << 10
            let go = directory.path + "/go"
            // The other process opens first, with the small map, and waits.
            let other = try HelperProcess(["grow", directory.path, String(small), go])
            let opened = try await other.waitForLine { $0.hasPrefix("opened") || $0.contains("error") }
            #expect(opened == "opened \(small)", "\(other.lines)")

            // This process grows its map twice in a write that then fails (nothing committed): its map
            // and the file are 1 MiB, the other process's map is still 256 KiB.
            let environment = try Environment(
                directory: directory.path, configuration: EnvironmentConfiguration(mapSize: small, options: .writeMap))
            defer { environment.close() }
            let database = try environment.database(named: "mine")
            let mapSize = try growMapWithoutCommitting(environment, database)
            #expect(mapSize >= 4 * small)
            let dataFile = directory.path + "/data.mdb"
            #expect(fileSize(dataFile) >= mapSize)

            // The other process fills its small map and grows it (to less than this process's map).
            _ = FileManager.default.createFile(atPath: go, contents: nil)
            let status = try await other.waitForExit()
            #expect(status.reason == .exit && status.code == 0, "\(other.lines)")
            #expect(other.lines.contains { $0.hasPrefix("grew") }, "\(other.lines)")

            // The file still covers this process's map: filling it is safe.
            try #require(fileSize(dataFile) >= mapSize, "the data file shrank under this process's map")
            try fill(environment, database, upTo: mapSize)
        }

        @Test(.hangGuard)
        func aProcessAdoptingAMapGrownByAnotherDoesNotShrinkTheFileUnderAThirdProcesssLargerMap() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let small = 256 << 10
            // Two other processes open the environment with the small map and wait.
            let adopting = try HelperProcess(["grow", directory.path, String(small), directory.path + "/go-adopting"])
            #expect(
                try await adopting.waitForLine { $0.hasPrefix("opened") || $0.contains("error") } == "opened \(small)")
            let growing = try HelperProcess(["grow", directory.path, String(small), directory.path + "/go-growing"])
            #expect(
                try await growing.waitForLine { $0.hasPrefix("opened") || $0.contains("error") } == "opened \(small)")
            // One of them grows its map and commits past the small map.
            _ = FileManager.default.createFile(atPath: directory.path + "/go-growing", contents: nil)
            let grown = try await growing.waitForExit()
            #expect(grown.reason == .exit && grown.code == 0, "\(growing.lines)")

            // This process grows its map further in a write that then fails (nothing committed).
            let environment = try Environment(
                directory: directory.path, configuration: EnvironmentConfiguration(mapSize: small, options: .writeMap))
            defer { environment.close() }
            let database = try environment.database(named: "mine")
            let mapSize = try growMapWithoutCommitting(environment, database)
            let dataFile = directory.path + "/data.mdb"
            #expect(fileSize(dataFile) >= mapSize)

            // The first process writes: its map is too small for what was committed, so it adopts the
            // map size the committer recorded (less than this process's map).
            _ = FileManager.default.createFile(atPath: directory.path + "/go-adopting", contents: nil)
            let adopted = try await adopting.waitForExit()
            #expect(adopted.reason == .exit && adopted.code == 0, "\(adopting.lines)")

            try #require(fileSize(dataFile) >= mapSize, "the data file shrank under this process's map")
            try fill(environment, database, upTo: mapSize)
        }
    }
#endif
