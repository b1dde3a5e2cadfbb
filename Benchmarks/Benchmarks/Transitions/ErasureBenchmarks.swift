import Benchmark
import BenchmarkMachines
import BenchmarkSupport
import Foundation
import Rewind
import Synchronization

/// Issue 29: what forgetting costs. Erasing one session of a store, against appending the same
/// session (the write it undoes) in the same run; and a session's sends while retention passes
/// erase old sessions, against the same sends with no pass running.
func registerErasureBenchmarks() {
    let erasing = FixtureBox<ErasureFixture>()
    Benchmark(
        "12 erase one 64-record session of a 64,000-record store: Rewind",
        configuration: .init(
            metrics: [.throughput, .wallClock], maxDuration: .seconds(3), maxIterations: 900),
        closure: { benchmark in
            guard let fixture = erasing.value else { return benchmark.error("no fixture") }
            do {
                try fixture.eraseNext()
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: { erasing.value = try await ErasureFixture(sessions: 1_000, recordsPerSession: 64) },
        teardown: { erasing.value?.close() })

    let appending = FixtureBox<ErasureFixture>()
    Benchmark(
        "12 erase one 64-record session of a 64,000-record store: baseline, appending such a session",
        configuration: .init(metrics: [.throughput, .wallClock], maxDuration: .seconds(3), maxIterations: 900),
        closure: { benchmark in
            guard let fixture = appending.value else { return benchmark.error("no fixture") }
            do {
                try await fixture.appendNext()
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: { appending.value = try await ErasureFixture(sessions: 1_000, recordsPerSession: 64) },
        teardown: { appending.value?.close() })

    for duringPass in [false, true] {
        let box = FixtureBox<RetentionFixture>()
        Benchmark(
            duringPass
                ? "13 send during retention passes: Rewind" : "13 send during retention passes: baseline, no pass",
            configuration: .init(
                metrics: [.wallClock, .throughput], maxDuration: .seconds(3), maxIterations: 20_000),
            closure: { benchmark in
                guard let fixture = box.value else { return benchmark.error("no fixture") }
                do {
                    try await fixture.send()
                } catch {
                    benchmark.error("\(error)")
                }
            },
            setup: { box.value = try await RetentionFixture(passesRunning: duringPass) },
            teardown: { box.value?.close() })
    }
}

/// A no-sync store of `sessions` sessions of `recordsPerSession` records each, erased (or appended)
/// one session per iteration.
final class ErasureFixture: Sendable {
    let directory: ScratchDirectory
    let engine: Engine
    let recordsPerSession: Int
    private let next = Atomic<Int>(0)

    init(sessions: Int, recordsPerSession: Int) async throws {
        directory = try ScratchDirectory("erasure")
        engine = try Engine(directory: directory.path, configuration: EngineConfiguration(durability: .noSync))
        try BaselineConfiguration.rewind(.noSync).verify(engine: engine)
        try engine.register(try Machine(BenchMachines.flat))
        self.recordsPerSession = recordsPerSession
        for index in 0..<sessions { try await Self.write(engine, id: "user-\(index)", records: recordsPerSession) }
    }

    private static func write(_ engine: Engine, id: String, records: Int) async throws {
        let session = try await engine.startSession(id: try SessionID(id), machine: "onboarding-cycle")
        try await session.send("launch")
        for index in 0..<(records - 2) {
            try await session.send(BenchMachines.flatCycle[index % BenchMachines.flatCycle.count])
        }
    }

    /// Erases the next session.
    func eraseNext() throws {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        try engine.erase(try SessionID("user-\(index)"))
    }

    /// Appends a new session of as many records.
    func appendNext() async throws {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        try await Self.write(engine, id: "new-\(index)", records: recordsPerSession)
    }

    func close() {
        engine.close()
        directory.remove()
    }
}

/// A durable store of 20,000 sessions of a past day, and a session sending now; with
/// `passesRunning`, a thread applies a retention policy that drops the old sessions, 100 per pass
/// (200 durable passes, each scanning the sessions left: longer than the benchmark's 3 seconds on
/// the machines we measure on), while the benchmark sends.
final class RetentionFixture: @unchecked Sendable {
    let directory: ScratchDirectory
    let engine: Engine
    let session: Session
    private let position = Mutex(0)
    /// The thread running the passes (it ends with them, or with an error once the engine closes).
    private let passes: Thread?

    init(passesRunning: Bool) async throws {
        directory = try ScratchDirectory("retention")
        let past = Timestamp(microsecondsSince1970: 1_000_000_000_000_000)
        let clock = Mutex(past)
        var configuration = EngineConfiguration(durability: .durable)
        configuration.clock = { clock.withLock { $0 } }
        configuration.retention = RetentionPolicy(maximumAge: .seconds(86_400), keepsUnacknowledgedUploads: false)
        engine = try Engine(directory: directory.path, configuration: configuration)
        try engine.register(try Machine(BenchMachines.flat))
        let engine = self.engine
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for index in stride(from: task, to: 20_000, by: 16) {
                        let old = try await engine.startSession(
                            id: try SessionID("old-\(index)"), machine: "onboarding-cycle")
                        try await old.send("launch")
                    }
                }
            }
            try await group.waitForAll()
        }
        clock.withLock { $0 = .now() }
        session = try await engine.startSession(id: "now", machine: "onboarding-cycle")
        try await session.send("launch")
        guard passesRunning else {
            passes = nil
            return
        }
        let thread = Thread {
            _ = try? engine.applyRetention()
        }
        passes = thread
        thread.start()
    }

    func send() async throws {
        let index = position.withLock { position in
            defer { position = (position + 1) % BenchMachines.flatCycle.count }
            return position
        }
        try await session.send(BenchMachines.flatCycle[index])
    }

    func close() {
        engine.close()
        directory.remove()
    }
}
