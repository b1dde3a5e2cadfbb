import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Promise 3: a full disk fails the append cleanly (a typed error, nothing acknowledged that is
/// not written), keeps everything earlier, and the store works again once space is freed.
struct FullDiskTests {
    /// How full the disk gets, and how. `pwrite`: the map (8 MiB) is more than the 2 MiB disk, so
    /// the store cannot reserve its writable map and writes pages with `pwrite`; the disk fills
    /// mid-commit. `reserved map`: the map (256 KiB at first) fits the 3 MiB disk, so the store
    /// writes through its reserved writable map; the disk fills when the map has to grow, and
    /// reserving the grown map fails before anything is written into it (a write into an
    /// unreserved hole would crash the process). Freeing the filler makes room again either way.
    struct DiskCase: Sendable, CustomTestStringConvertible {
        var name: String
        var initialMap: Int
        var diskMegabytes: Int
        var filler: Int
        var testDescription: String { name }
    }

    @Test(
        .hangGuard,
        arguments: [
            DiskCase(name: "pwrite", initialMap: 8 << 20, diskMegabytes: 2, filler: 768 << 10),
            DiskCase(name: "reserved map", initialMap: 256 << 10, diskMegabytes: 3, filler: 1 << 20),
        ])
    func aFullDiskFailsTheAppendKeepsEverythingEarlierAndWorksAgainOnceSpaceIsFreed(disk: DiskCase) async throws {
        let filesystem: SmallFilesystem
        switch try SmallFilesystem.mount(megabytes: disk.diskMegabytes) {
        case .success(let mounted): filesystem = mounted
        case .failure(let reason):
            print("full disk test skipped: \(reason)")
            return
        }
        defer { filesystem.unmount() }
        // Something to delete later to free space.
        let filler = URL(fileURLWithPath: filesystem.path).appendingPathComponent("filler")
        try Data(repeating: 0xA5, count: disk.filler).write(to: filler)
        let directory = filesystem.path + "/store"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)

        // The map may grow to more than the disk holds: the disk fills before the map does.
        var configuration = EngineConfiguration(durability: .durable, snapshotInterval: 16)
        configuration.store.environment.mapSize = disk.initialMap
        configuration.store.environment.maximumMapSize = 8 << 20
        let engine = try Engine(directory: directory, configuration: configuration)
        try engine.register(try TickerMachine.machine())
        let session = try await engine.startSession(id: "filler", machine: TickerMachine.name)
        let hooks = LockedBox(0)
        session.onDidTransition { _ in hooks.withValue { $0 += 1 } }
        let chunk = JSONValue.string(String(repeating: "z", count: 12_000))
        var acknowledged = 0
        var failure: (any Error)?
        for n in 0..<400 {
            do {
                try await session.send(TickerMachine.tick, payload: ["n": .number(Double(n)), "chunk": chunk])
                acknowledged += 1
            } catch {
                failure = error
                break
            }
        }
        let error = try #require(
            failure as? LMDBError,
            "expected the disk to fill, got \(String(describing: failure)) after \(acknowledged) sends")
        print("full disk (\(disk.name)): \(acknowledged) sends acknowledged, then: \(error)")
        // ENOSPC, also when LMDB reported a short `pwrite` (the disk filled mid-page) as EIO.
        #expect(error.isDiskFull, "\(error)")
        #expect(!error.isMapFull)
        // Nothing unacknowledged was adopted or announced; everything earlier is readable.
        #expect(session.version == UInt64(acknowledged + 1))
        #expect(hooks.current == acknowledged)
        #expect(try engine.store.headSequence() == UInt64(acknowledged + 1))
        #expect(try LogAudit(engine.writableStore).problems.isEmpty)
        // Still full: a second attempt fails the same way and writes nothing.
        await #expect(throws: LMDBError.self) {
            try await session.send(TickerMachine.tick, payload: ["n": -1, "chunk": chunk])
        }
        #expect(try engine.store.headSequence() == UInt64(acknowledged + 1))

        // Free space: the same engine and session work again.
        try FileManager.default.removeItem(at: filler)
        try await session.send(TickerMachine.tick, payload: ["n": .number(Double(acknowledged)), "chunk": chunk])
        #expect(session.version == UInt64(acknowledged + 2))
        engine.close()

        // After a restart everything acknowledged is there, in order, and nothing else.
        let reopened = try Engine(directory: directory, configuration: configuration)
        defer { reopened.close() }
        try reopened.register(try TickerMachine.machine())
        let audit = try LogAudit(reopened.writableStore)
        #expect(audit.problems.isEmpty, "\(audit.problems.prefix(5))")
        let numbers = try audit.records(of: "filler").dropFirst().map { record in
            try JSONPayloadCoder().decode(JSONValue.self, from: record.payload)["n"]?.doubleValue
        }
        #expect(numbers == (0...acknowledged).map { Double($0) })
        #expect(try reopened.session("filler").version == UInt64(acknowledged + 2))
    }
}
