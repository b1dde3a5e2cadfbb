import Benchmark
import BenchmarkMachines
import BenchmarkSupport
import Foundation
import Rewind
@_spi(Internals) import RewindStore
import Synchronization

/// Hands out at most `limit` tickets across concurrent sessions: an iteration's transitions.
final class Tickets: Sendable {
    private let taken = Atomic<Int>(0)
    let limit: Int

    init(limit: Int) { self.limit = limit }

    func take() -> Bool {
        taken.wrappingAdd(1, ordering: .relaxed).oldValue < limit
    }
}

/// The metric carrying the observed (or replayed) batch size: appends per LMDB commit.
let batchMetric = BenchmarkMetric.custom("appends per commit", polarity: .prefersLarger, useScalingFactor: false)

/// An engine over a scratch store, with `count` sessions of the cycling flat machine, each
/// started and launched (so at `greeting`, version 2).
final class EngineFixture: @unchecked Sendable {
    let directory: ScratchDirectory
    let engine: Engine
    let sessions: [Session]
    /// Each session's next event index into ``BenchMachines/flatCycle``.
    private let positions: Mutex<[Int]>
    /// ``bulkChunk`` events of the cycle from each of its positions, made once: an app hands
    /// over the events it has, and building them is not the engine's work (built per call, they
    /// were ~230 instructions of every bulk record; Benchmarks/HISTORY.md 2026-12-02).
    let bulkBatches: [[Event]] = BenchMachines.flatCycle.indices.map { start in
        (0..<bulkChunk).map { BenchMachines.flatCycle[(start + $0) % BenchMachines.flatCycle.count] }
    }

    init(durability: Durability, sessions count: Int, snapshotInterval: UInt64 = 64) async throws {
        directory = try ScratchDirectory("engine")
        var configuration = EngineConfiguration(durability: durability, snapshotInterval: snapshotInterval)
        // For experiments: `COMMIT_GATHERING=immediate` (or `acknowledged`) overrides the default.
        switch ProcessInfo.processInfo.environment["COMMIT_GATHERING"] {
        case "immediate": configuration.commitGathering = .immediate
        case "acknowledged": configuration.commitGathering = .acknowledgedSenders
        default: break
        }
        engine = try Engine(directory: directory.path, configuration: configuration)
        try BaselineConfiguration.rewind(durability).verify(engine: engine)
        try engine.register(try Machine(BenchMachines.flat))
        let engine = self.engine
        sessions = try await withThrowingTaskGroup(of: Session.self) { group in
            for index in 0..<count {
                group.addTask {
                    let session = try await engine.startSession(id: "user-\(index)", machine: "onboarding-cycle")
                    try await session.send("launch")
                    return session
                }
            }
            var sessions: [Session] = []
            for try await session in group { sessions.append(session) }
            return sessions
        }
        positions = Mutex(Array(repeating: 0, count: count))
    }

    /// Sends the next event of the cycle on session `index` (one per call: sessions are driven
    /// by one task each).
    func step(_ index: Int) async throws {
        try await sessions[index].send(BenchMachines.flatCycle[advance(index, by: 1)])
    }

    /// Moves session `index`'s place in the cycle `count` events on; returns where it was.
    func advance(_ index: Int, by count: Int) -> Int {
        positions.withLock { positions in
            let position = positions[index]
            positions[index] = (position + count) % BenchMachines.flatCycle.count
            return position
        }
    }

    /// Runs `total` transitions across every session concurrently (each session sends one after
    /// another; the engine groups what is pending into one commit).
    func run(transitions total: Int) async throws {
        let tickets = Tickets(limit: total)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in sessions.indices {
                group.addTask {
                    while tickets.take() { try await self.step(index) }
                }
            }
            try await group.waitForAll()
        }
    }

    func close() {
        engine.close()
        directory.remove()
    }
}

/// One real record of the cycling flat machine (greeting → login), as the store encodes it:
/// the raw baselines write values of its size, the GRDB log rows of its fields.
struct SampleRecord: Sendable {
    let record: TransitionRecord
    let encodedSize: Int

    static func make() async throws -> SampleRecord {
        let fixture = try await EngineFixture(durability: .noSync, sessions: 1)
        defer { fixture.close() }
        try await fixture.step(0)  // version 3: start, greeting → login
        guard let record = try fixture.engine.store.records(of: fixture.sessions[0].id, versions: 3...3).first
        else { throw BenchmarkSetupError("no record at version 3") }
        return SampleRecord(record: record, encodedSize: RecordCodec.encode(record).count)
    }
}

/// The average batch (appends per commit) the engine reaches with `sessions` concurrent
/// sessions under `durability`: the batch size the raw baselines replay.
func observedBatch(sessions: Int, durability: Durability, transitions: Int = 2_000) async throws -> Int {
    let fixture = try await EngineFixture(durability: durability, sessions: sessions)
    defer { fixture.close() }
    let before = fixture.engine.commitStatistics
    try await fixture.run(transitions: transitions)
    let after = fixture.engine.commitStatistics
    let batch = Double(after.appends - before.appends) / Double(max(1, after.commits - before.commits))
    return max(1, Int(batch.rounded()))
}

/// A setup step failed.
struct BenchmarkSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
