import Benchmark
import BenchmarkSupport
import Rewind

/// Item 6 (what exists so far): resuming a session with 100,000 versions — its latest snapshot
/// plus the records after it.
func registerResumeBenchmarks() {
    let box = FixtureBox<EngineFixture>()
    Benchmark(
        "6 resume a 100,000-version session: Rewind",
        configuration: .init(
            metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(3), maxIterations: 2_000),
        closure: { benchmark in
            guard let fixture = box.value else { return benchmark.error("no fixture") }
            do {
                let session = try fixture.engine.session("user-0")
                blackHole(session)
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            let fixture = try await EngineFixture(durability: .noSync, sessions: 1)
            // 2 versions so far (start, launch); 99,998 more, leaving 100,000 % 64 = 32 records after
            // the latest snapshot to replay on resume.
            try await fixture.run(transitions: 99_998)
            try fixture.engine.flush()
            box.value = fixture
        },
        teardown: { box.value?.close() })
}
