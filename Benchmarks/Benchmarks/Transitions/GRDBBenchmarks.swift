import Benchmark
import Rewind

/// Item 5: the same durable log on SQLite through GRDB, one row per transaction and in batches of
/// the engine's observed 64-session batch.
func registerGRDBBenchmarks() {
    let box = FixtureBox<GRDBLog>()
    Benchmark(
        "5 GRDB one per transaction", configuration: .init(
            metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(4), maxIterations: 4_000),
        closure: { benchmark in
            guard let log = box.value else { return benchmark.error("no fixture") }
            do { try log.append(count: 1) } catch { benchmark.error("\(error)") }
        },
        setup: { box.value = try GRDBLog(sample: try await SampleRecord.make().record) },
        teardown: { try box.value?.close() })

    let batchedBox = FixtureBox<(log: GRDBLog, batch: Int)>()
    Benchmark(
        "5 GRDB batched (64 sessions' batch)", configuration: .init(
            metrics: [.throughput, .wallClock, batchMetric], scalingFactor: .kilo, maxDuration: .seconds(5),
            maxIterations: 30),
        closure: { benchmark in
            guard let (log, batch) = batchedBox.value else { return benchmark.error("no fixture") }
            do {
                try log.append(rows: benchmark.scaledIterations.count, batch: batch)
                benchmark.measurement(batchMetric, batch)
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            let batch = try await observedBatch(sessions: 64, durability: .durable)
            batchedBox.value = (try GRDBLog(sample: try await SampleRecord.make().record), batch)
        },
        teardown: { try batchedBox.value?.log.close() })
}
