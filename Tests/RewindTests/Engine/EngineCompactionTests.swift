import Foundation
import Rewind
import RewindTestSupport
import Testing

/// `Engine.compact`: the engine's sessions (and other engines of the process on the store) keep
/// working during and after it; nothing acknowledged is lost; the file shrinks.
struct EngineCompactionTests {
    @Test(.hangGuard)
    func sessionsSendingDuringACompactionLoseNothingAndGoOnAfterIt() async throws {
        let fixture = try EngineFixture(snapshotInterval: 8)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()]) {
            $0.durability = .noSync
            $0.store.environment.mapSize = 16 << 20
            $0.projections = [ScreenFlowProjection()]
        }
        defer { engine.close() }
        let other = try fixture.open(registering: [try TickerMachine.machine()])
        defer { other.close() }
        let sessions = try await (0..<4).asyncMap {
            try await engine.startSession(id: "s\($0)", machine: TickerMachine.name)
        }
        for session in sessions {
            for n in 0..<100 { try await session.send(TickerMachine.tick, payload: ["n": .number(Double(n))]) }
        }
        let before = try engine.store.headSequence()
        // Sends from four tasks while the store is compacted twice.
        let acknowledged = try await withThrowingTaskGroup(of: Int.self) { group in
            for session in sessions {
                group.addTask {
                    for n in 100..<200 {
                        try await session.send(TickerMachine.tick, payload: ["n": .number(Double(n))])
                    }
                    return 100
                }
            }
            group.addTask {
                let first = try engine.compact()
                #expect(first.bytesAfter < first.bytesBefore, "\(first)")
                try other.compact()
                return 0
            }
            return try await group.reduce(0, +)
        }
        #expect(try engine.store.headSequence() == before + UInt64(acknowledged))
        for session in sessions {
            try await session.send(TickerMachine.tick, payload: ["n": 200])
            #expect(session.version == 202)  // the start, 201 ticks
        }
        let report = try engine.checkStore()
        #expect(report.isConsistent, "\(String(describing: report.problem))")
        for name in engine.registeredProjections {
            #expect(try engine.projectionStatus(named: name)?.checkpoint == engine.store.headSequence())
        }
        // The other engine reads the same store.
        #expect(try other.session("s3").version == 202)
        let mapSize = try engine.writableStore.statistics().mapSize
        let used = try engine.writableStore.statistics().usedPages * 4096
        #expect(mapSize <= used + engine.configuration.mapHeadroom + 4096, "map \(mapSize), used \(used)")
    }

    @Test func aReadOnlyOrClosedEngineDoesNotCompact() throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        try fixture.open(registering: []).close()
        let reader = try fixture.open(registering: []) { $0.readOnly = true }
        #expect(throws: CompactionError.self) { try reader.compact() }
        reader.close()
        let engine = try fixture.open(registering: [])
        engine.close()
        #expect(throws: EngineError.closed) { try engine.compact() }
    }
}

extension Range where Bound == Int {
    fileprivate func asyncMap<T>(_ transform: (Int) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
