#if os(Linux)
import Foundation
import Glibc
import Rewind
import RewindTestSupport
import Testing

/// Several processes on one store with writable maps: a process that opens the store never
/// shrinks the data file under another process's larger map (with `MDB_WRITEMAP` LMDB sizes the
/// file to the map it opens with, and a write into a mapped page past the end of the file kills
/// the process with `SIGBUS`).
struct WriteMapSharingTests {
    func fileSize(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : -1
    }

    func append(_ count: Int, to store: TransitionStore, from first: Int) throws {
        let payload = [UInt8](repeating: 0x5A, count: 2_000)
        try store.write { transaction in
            for index in first..<(first + count) {
                let transition = Transition(
                    machine: "m", definition: "d", event: "e", source: ["a"], target: ["b"], navigation: [],
                    payload: payload, stateData: [])
                try transaction.append([transition], to: try SessionID("s\(index % 7)"))
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
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
}
#endif
