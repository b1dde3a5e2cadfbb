import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Promise 3: a full disk fails the append cleanly (a typed error, nothing acknowledged that is
/// not written), keeps everything earlier, and the store works again once space is freed.
struct FullDiskTests {
    @Test(.timeLimit(.minutes(1)))
    func aFullDiskFailsTheAppendKeepsEverythingEarlierAndWorksAgainOnceSpaceIsFreed() async throws {
        let filesystem: SmallFilesystem
        switch try SmallFilesystem.mount(megabytes: 2) {
        case .success(let mounted): filesystem = mounted
        case .failure(let reason):
            print("full disk test skipped: \(reason)")
            return
        }
        defer { filesystem.unmount() }
        // Something to delete later to free space.
        let filler = URL(fileURLWithPath: filesystem.path).appendingPathComponent("filler")
        try Data(repeating: 0xA5, count: 768 << 10).write(to: filler)
        let directory = filesystem.path + "/store"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)

        // The map (sparse) is larger than the disk: the disk fills before the map does.
        var configuration = EngineConfiguration(durability: .durable, snapshotInterval: 16)
        configuration.store.environment.mapSize = 8 << 20
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
        let error = try #require(failure as? LMDBError, "expected the disk to fill, got \(String(describing: failure)) after \(acknowledged) sends")
        print("full disk: \(acknowledged) sends acknowledged, then: \(error)")
        // ENOSPC, or EIO: LMDB reports a short `pwrite` (the disk filled mid-page) as EIO.
        #expect([ENOSPC, EIO].contains(error.code), "\(error)")
        #expect(!error.isMapFull)
        // Nothing unacknowledged was adopted or announced; everything earlier is readable.
        #expect(session.version == UInt64(acknowledged + 1))
        #expect(hooks.current == acknowledged)
        #expect(try engine.store.headSequence() == UInt64(acknowledged + 1))
        #expect(try LogAudit(engine.store).problems.isEmpty)
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
        let audit = try LogAudit(reopened.store)
        #expect(audit.problems.isEmpty, "\(audit.problems.prefix(5))")
        let numbers = try audit.records(of: "filler").dropFirst().map { record in
            try JSONPayloadCoder().decode(JSONValue.self, from: record.payload)["n"]?.numberValue
        }
        #expect(numbers == (0...acknowledged).map { Double($0) })
        #expect(try reopened.session("filler").version == UInt64(acknowledged + 2))
    }
}
