import Benchmark
import BenchmarkSupport
import Rewind

/// Item 5: the same durable log on SQLite through GRDB, each row named with its durability (see
/// ``BaselineConfiguration``): one row per transaction at `synchronous = FULL` (Rewind's
/// `.durable`) and at GRDB's default `NORMAL` (weaker: may lose the last commits on power loss),
/// in batches of the engine's observed 64-session batch at FULL, and 64 concurrent writers at
/// FULL each committing its own one-row transaction (what an app with a task per session writes
/// without a group commit of its own).
func registerGRDBBenchmarks() {
    for configuration in [BaselineConfiguration.grdbFull, .grdbNormal] {
        let box = FixtureBox<GRDBLog>()
        Benchmark(
            "5 GRDB \(configuration == .grdbFull ? "FULL" : "NORMAL") one per transaction",
            configuration: .init(
                metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(4), maxIterations: 4_000),
            closure: { benchmark in
                guard let log = box.value else { return benchmark.error("no fixture") }
                do { try log.append(count: 1) } catch { benchmark.error("\(error)") }
            },
            setup: {
                box.value = try GRDBLog(sample: try await SampleRecord.make().record, configuration: configuration)
            },
            teardown: { try box.value?.close() })
    }

    let batchedBox = FixtureBox<(log: GRDBLog, batch: Int)>()
    Benchmark(
        "5 GRDB FULL batched (64 sessions' batch)",
        configuration: .init(
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
            batchedBox.value = (
                try GRDBLog(sample: try await SampleRecord.make().record, configuration: .grdbFull), batch
            )
        },
        teardown: { try batchedBox.value?.log.close() })

    let writersBox = FixtureBox<GRDBLog>()
    Benchmark(
        "5 GRDB FULL 64 concurrent writers",
        configuration: .init(
            metrics: [.throughput, .wallClock], scalingFactor: .kilo, maxDuration: .seconds(5), maxIterations: 30),
        closure: { benchmark in
            guard let log = writersBox.value else { return benchmark.error("no fixture") }
            do {
                try await log.appendConcurrently(rows: benchmark.scaledIterations.count, writers: 64)
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            writersBox.value = try GRDBLog(sample: try await SampleRecord.make().record, configuration: .grdbFull)
        },
        teardown: { try writersBox.value?.close() })
}
