import Foundation
import Rewind
import RewindTestSupport
import Testing

/// A full store fails the append: nothing is acknowledged that was not written, no hook runs;
/// below the bound the map grows under group commit without losing anything.
struct StoreFullTests {
    func engine(
        in directory: TemporaryDirectory, mapSize: Int, maximum: Int, durability: Durability = .noSync
    ) throws -> Engine {
        var configuration = EngineConfiguration(durability: durability)
        configuration.store.environment.mapSize = mapSize
        configuration.store.environment.maximumMapSize = maximum
        let engine = try Engine(directory: directory.path, configuration: configuration)
        try engine.register(try TickerMachine.machine())
        return engine
    }

    @Test func aFullStoreFailsTheSendWithMapFullAndAcknowledgesNothingUnwritten() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try engine(in: directory, mapSize: 1 << 20, maximum: 1 << 20)
        defer { engine.close() }
        let session = try await engine.startSession(id: "ticker", machine: TickerMachine.name)
        let hooks = LockedBox(0)
        session.onDidTransition { _ in hooks.withValue { $0 += 1 } }
        let chunk = JSONValue.string(String(repeating: "x", count: 50_000))
        var acknowledged = 0
        var failure: (any Error)?
        for _ in 0..<100 {
            do {
                try await session.send(TickerMachine.tick, payload: ["chunk": chunk])
                acknowledged += 1
            } catch {
                failure = error
                break
            }
        }
        let error = try #require(failure as? LMDBError, "expected MDB_MAP_FULL, got \(String(describing: failure))")
        #expect(error.isMapFull)
        #expect(hooks.current == acknowledged)
        #expect(session.version == UInt64(acknowledged + 1))
        #expect(try engine.store.headSequence() == UInt64(acknowledged + 1))
        #expect(try LogAudit(engine.writableStore).problems.isEmpty)
        // Small records still fit.
        try await session.send(TickerMachine.tick)
        #expect(session.version == UInt64(acknowledged + 2))
    }

    /// No-sync: commits take what is waiting. Durable with 40 senders: commits gather their
    /// batches (the map fills in commits of ~40 appends).
    @Test(arguments: [(Durability.noSync, 8, 100), (.durable, 40, 25)])
    func theMapGrowsUnderGroupCommitWithoutLosingAnything(durability: Durability, sessions: Int, sends: Int)
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try engine(in: directory, mapSize: 1 << 20, maximum: 1 << 30, durability: durability)
        defer { engine.close() }
        let chunk = JSONValue.string(String(repeating: "y", count: 4_000))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<sessions {
                group.addTask {
                    let session = try await engine.startSession(id: "ticker-\(index)", machine: TickerMachine.name)
                    for send in 0..<sends {
                        try await session.send(
                            TickerMachine.tick, payload: ["chunk": chunk, "n": .number(Double(send))])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try engine.store.statistics().mapSize > 1 << 20)
        let audit = try LogAudit(engine.writableStore)
        #expect(audit.problems.isEmpty)
        #expect(audit.records.count == sessions * (sends + 1))
        // Each session's sends once each, in order.
        let coder = JSONPayloadCoder()
        var sent: [String: [Double]] = [:]
        for record in audit.records where record.version > 1 {
            let payload = try coder.decode(JSONValue.self, from: record.payload)
            sent[record.session.rawValue, default: []].append(payload["n"]?.doubleValue ?? -1)
        }
        #expect(sent.count == sessions)
        #expect(sent.values.allSatisfy { $0 == (0..<sends).map(Double.init) })
        if durability == .durable { #expect(engine.commitStatistics.gatheringWaits > 0) }
    }
}
