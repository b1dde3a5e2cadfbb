import Foundation
import Rewind
import RewindLMDB
import RewindTestSupport
import Testing

/// What an OS crash or power loss can leave of a store written with
/// `Durability.lastCommitMayRollBack`, made by hand (a real one cannot be produced here).
///
/// With `MDB_NOMETASYNC` a commit flushes the data pages (the whole map, with `MDB_WRITEMAP`:
/// that includes the meta page the commit before wrote) and then writes its own meta page without
/// flushing it. So when the machine stops while commit N+1 is being written, the disk holds
/// the meta pages of commits N−1 and N−2 (N's was never flushed), any of the pages N and N+1
/// wrote, and everything before. LMDB reuses a page only two transactions after the one that
/// freed it, so commit N−1's pages are intact: the store must open there, whole — the last
/// acknowledged commit (N) undone, nothing else lost, nothing corrupted.
struct UnflushedMetaPageTests {
    /// The first `count` bytes of the data file in `directory` (read while the store is open: the
    /// file's pages as the OS holds them, which is what reaches the disk).
    static func prefix(of directory: String, count: Int) throws -> Data {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: directory + "/data.mdb"))
        defer { try? handle.close() }
        return try handle.read(upToCount: count) ?? Data()
    }

    @Test func aStoreWhoseLastMetaPagesNeverReachedTheDiskOpensWholeAtTheCommitBefore() async throws {
        let fixture = try EngineFixture(snapshotInterval: 4)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()]) {
            $0.durability = .lastCommitMayRollBack
            $0.projections = [ScreenFlowProjection(), NavigationProjection()]
        }
        let session = try await engine.startSession(id: "screens", machine: TickerMachine.name)
        for n in 0..<9 { try await session.send(TickerMachine.tick, payload: ["n": .number(Double(n))]) }

        // After commit N−1 (acknowledged): its meta page and N−2's, as the OS holds them.
        let statistics = try engine.store.statistics()
        let metaPages = try Self.prefix(of: fixture.directory.path, count: 2 * statistics.pageSize)
        let head = try engine.store.headSequence()
        let state = session.snapshot
        // Commit N (acknowledged, then undone) and N+1 (its pages written, its meta page not).
        try await session.send(TickerMachine.tick, payload: ["n": 9])
        try await session.send(TickerMachine.tick, payload: ["n": 10])
        #expect(
            try engine.store.statistics().lastTransactionID == statistics.lastTransactionID + 2,
            "each send is one commit")
        engine.close()

        // The disk after the crash: every page written so far, the meta pages of N−1 and N−2.
        let crashed = try TemporaryDirectory(prefix: "rewind-crashed")
        defer { crashed.remove() }
        var file = try Data(contentsOf: URL(fileURLWithPath: fixture.directory.path + "/data.mdb"))
        file.replaceSubrange(0..<metaPages.count, with: metaPages)
        try file.write(to: crashed.url.appendingPathComponent("data.mdb"))

        // LMDB takes the newer meta page there: N−1's (opening the engine writes transactions).
        let reopenedAt = try Environment.inspect(directory: crashed.path) { try $0.statistics().lastTransactionID }
        #expect(reopenedAt == statistics.lastTransactionID)

        var configuration = EngineConfiguration(durability: .durable, snapshotInterval: 4)
        configuration.projections = [ScreenFlowProjection(), NavigationProjection()]
        let reopened = try Engine(directory: crashed.path, configuration: configuration)
        defer { reopened.close() }
        try reopened.register(try TickerMachine.machine())
        #expect(try reopened.store.headSequence() == head)
        let audit = try LogAudit(reopened.writableStore)
        #expect(audit.problems.isEmpty, "\(audit.problems.prefix(5))")
        #expect(try reopened.checkStore().problem == nil)
        let resumed = try reopened.session("screens")
        #expect(resumed.snapshot == state)
        #expect(resumed.version == 10)
        for name in [ScreenFlowProjection().name, NavigationProjection().name] {
            #expect(try reopened.projectionStatus(named: name)?.checkpoint == head)
        }

        // It goes on from there: the undone commit's version is taken again.
        try await resumed.send(TickerMachine.tick, payload: ["n": 9])
        #expect(resumed.version == 11)
        #expect(try LogAudit(reopened.writableStore).problems.isEmpty)
    }
}
