import Benchmark
import BenchmarkMachines
import BenchmarkSupport
import Rewind

/// Items 2–4: the engine's appends (durable one per commit, group commit, no-sync) each paired
/// with raw LMDB C calls writing values of the same record size in the same batches.
func registerDurableBenchmarks() {
    let perCommit = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        maxDuration: .seconds(4), maxIterations: 4_000)
    let perThousand = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal, batchMetric],
        warmupIterations: 1, scalingFactor: .kilo, maxDuration: .seconds(5), maxIterations: 30)
    // One session's group commit holds one transition: one per iteration, like item 2.
    let perCommitBatch = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal, batchMetric],
        maxDuration: .seconds(4), maxIterations: 4_000)
    let rawPerCommitBatch = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, batchMetric], maxDuration: .seconds(4), maxIterations: 4_000)
    let rawPerThousand = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, batchMetric],
        warmupIterations: 1, scalingFactor: .kilo, maxDuration: .seconds(5), maxIterations: 30)

    // 2. Durable, one transition per commit, one session.
    do {
        let box = FixtureBox<EngineFixture>()
        Benchmark(
            "2 durable one per commit: Rewind", configuration: perCommit,
            closure: { benchmark in
                guard let fixture = box.value else { return benchmark.error("no fixture") }
                do {
                    try await fixture.step(0)
                } catch {
                    benchmark.error("\(error)")
                }
            },
            setup: { box.value = try await EngineFixture(durability: .durable, sessions: 1) },
            teardown: { box.value?.close() })
    }
    rawBenchmark("2 durable one per commit: raw LMDB", configuration: perCommit, noSync: false, perIteration: 1) {
        1
    }

    // 3. Durable group commit.
    for sessions in [1, 8, 64, 256] {
        engineBenchmark(
            "3 group commit \(sessions) sessions: Rewind",
            configuration: sessions == 1 ? perCommitBatch : perThousand, durability: .durable, sessions: sessions)
        rawBenchmark(
            "3 group commit \(sessions) sessions: raw LMDB same batch",
            configuration: sessions == 1 ? rawPerCommitBatch : rawPerThousand,
            noSync: false, perIteration: sessions == 1 ? 1 : 1_000
        ) {
            try await observedBatch(sessions: sessions, durability: .durable)
        }
    }

    // 3 and 4. The ceiling of an async engine at 64 sessions: raw LMDB commits fed by 64 tasks
    // that suspend until their commit returns, nothing else (no machine, no encoding).
    // Each paired with raw LMDB at the batch the fed tasks reach.
    for (name, noSync) in [
        ("3 group commit 64 sessions: raw LMDB", false), ("4 no-sync 64 sessions: raw LMDB NOSYNC", true),
    ] {
        taskFedBenchmark("\(name) fed by 64 tasks", configuration: rawPerThousand, noSync: noSync)
        rawBenchmark(
            "\(name) at the fed tasks' batch", configuration: rawPerThousand, noSync: noSync, perIteration: 1_000
        ) {
            let log = try TaskFedRawLog(recordSize: try await SampleRecord.make().encodedSize, noSync: noSync)
            defer { log.close() }
            let appends = noSync ? 20_000 : 4_000
            let commits = try await log.run(appends: appends, senders: 64)
            return max(1, Int((Double(appends) / Double(max(1, commits))).rounded()))
        }
    }

    // 4. No-sync append (bulk import).
    for sessions in [1, 64] {
        engineBenchmark(
            "4 no-sync \(sessions) sessions: Rewind", configuration: perThousand, durability: .noSync,
            sessions: sessions)
        rawBenchmark(
            "4 no-sync \(sessions) sessions: raw LMDB NOSYNC same batch", configuration: rawPerThousand,
            noSync: true, perIteration: 1_000
        ) {
            try await observedBatch(sessions: sessions, durability: .noSync, transitions: 20_000)
        }
        // The same, configured like the store (which writes through a writable map on Linux).
        rawBenchmark(
            "4 no-sync \(sessions) sessions: raw LMDB NOSYNC WRITEMAP same batch", configuration: rawPerThousand,
            noSync: true, writeMap: true, perIteration: 1_000
        ) {
            try await observedBatch(sessions: sessions, durability: .noSync, transitions: 20_000)
        }
    }

    // 4. No-sync bulk import: each session sends its events `bulkChunk` at a time with
    // `send(contentsOf:)` (one append per call); raw LMDB writes the same records per commit.
    for sessions in [1, 64] {
        let box = FixtureBox<EngineFixture>()
        Benchmark(
            "4 no-sync bulk \(sessions) sessions: Rewind", configuration: perThousand,
            closure: { benchmark in
                guard let fixture = box.value else { return benchmark.error("no fixture") }
                do {
                    let before = fixture.engine.commitStatistics
                    benchmark.startMeasurement()
                    try await fixture.runBulk(transitions: benchmark.scaledIterations.count)
                    benchmark.stopMeasurement()
                    let after = fixture.engine.commitStatistics
                    benchmark.measurement(
                        batchMetric, recordsPerCommit(before, after, records: benchmark.scaledIterations.count))
                } catch {
                    benchmark.error("\(error)")
                }
            },
            setup: { box.value = try await EngineFixture(durability: .noSync, sessions: sessions) },
            teardown: { box.value?.close() })
        rawBenchmark(
            "4 no-sync bulk \(sessions) sessions: raw LMDB NOSYNC same batch", configuration: rawPerThousand,
            noSync: true, perIteration: 1_000
        ) {
            let fixture = try await EngineFixture(durability: .noSync, sessions: sessions)
            defer { fixture.close() }
            let before = fixture.engine.commitStatistics
            try await fixture.runBulk(transitions: 20_000)
            return recordsPerCommit(before, fixture.engine.commitStatistics, records: 20_000)
        }
    }
}

/// Events per `send(contentsOf:)` call in the bulk-import benchmarks.
let bulkChunk = 64

/// Records per commit between two statistics: `records` written in `after.commits - before.commits`.
func recordsPerCommit(_ before: CommitStatistics, _ after: CommitStatistics, records: Int) -> Int {
    max(1, Int((Double(records) / Double(max(1, after.commits - before.commits))).rounded()))
}

extension EngineFixture {
    /// Runs `total` transitions across every session concurrently, each session sending the flat
    /// cycle ``bulkChunk`` events per `send(contentsOf:)` (bulk import).
    func runBulk(transitions total: Int) async throws {
        let chunks = Tickets(limit: (total + bulkChunk - 1) / bulkChunk)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in sessions.indices {
                group.addTask {
                    while chunks.take() {
                        // The batch that continues the session's cycle, made before the run.
                        let position = self.advance(index, by: bulkChunk)
                        try await self.sessions[index].send(contentsOf: self.bulkBatches[position])
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

/// The engine with `sessions` concurrent sessions: the scaling factor's transitions per iteration.
private func engineBenchmark(
    _ name: String, configuration: Benchmark.Configuration, durability: Durability, sessions: Int
) {
    let box = FixtureBox<EngineFixture>()
    Benchmark(
        name, configuration: configuration,
        closure: { benchmark in
            guard let fixture = box.value else { return benchmark.error("no fixture") }
            do {
                let before = fixture.engine.commitStatistics
                benchmark.startMeasurement()
                try await fixture.run(transitions: benchmark.scaledIterations.count)
                benchmark.stopMeasurement()
                let after = fixture.engine.commitStatistics
                let batch = Double(after.appends - before.appends) / Double(max(1, after.commits - before.commits))
                benchmark.measurement(batchMetric, Int(batch.rounded()))
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: { box.value = try await EngineFixture(durability: durability, sessions: sessions) },
        teardown: { box.value?.close() })
}

/// Raw LMDB fed by 64 suspending tasks (see ``TaskFedRawLog``): the scaling factor's values per
/// iteration.
private func taskFedBenchmark(_ name: String, configuration: Benchmark.Configuration, noSync: Bool) {
    let box = FixtureBox<TaskFedRawLog>()
    Benchmark(
        name, configuration: configuration,
        closure: { benchmark in
            guard let log = box.value else { return benchmark.error("no fixture") }
            do {
                let count = benchmark.scaledIterations.count
                benchmark.startMeasurement()
                let commits = try await log.run(appends: count, senders: 64)
                benchmark.stopMeasurement()
                benchmark.measurement(batchMetric, max(1, Int((Double(count) / Double(max(1, commits))).rounded())))
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: { box.value = try TaskFedRawLog(recordSize: try await SampleRecord.make().encodedSize, noSync: noSync) },
        teardown: { box.value?.close() })
}

/// Raw LMDB appending `perIteration` values of the sample record's size per iteration, in write
/// transactions of `batch()` values each.
private func rawBenchmark(
    _ name: String, configuration: Benchmark.Configuration, noSync: Bool, writeMap: Bool = false,
    perIteration: Int, batch: @escaping @Sendable () async throws -> Int
) {
    let box = FixtureBox<(log: RawLMDBLog, batch: Int)>()
    Benchmark(
        name, configuration: configuration,
        closure: { benchmark in
            guard let (log, batch) = box.value else { return benchmark.error("no fixture") }
            do {
                try log.append(records: perIteration, batch: batch)
                benchmark.measurement(batchMetric, batch)
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            let size = try await SampleRecord.make().encodedSize
            let batch = try await batch()
            box.value = (try RawLMDBLog(recordSize: size, noSync: noSync, writeMap: writeMap), batch)
        },
        teardown: { box.value?.log.close() })
}
