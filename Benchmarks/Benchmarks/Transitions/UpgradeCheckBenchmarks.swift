import Benchmark
import BenchmarkMachines
import BenchmarkSupport
import Rewind

/// Issue 30: the upgrade check on a device store, in sessions checked per second. Each unit is one
/// session of 1,000 (each 66 versions: a start, a launch and 64 events of the cycling flat
/// machine) checked against a new definition with one more state: its recorded state rebuilt
/// under the old definition, moved to the new one and checked, then its 66 versions re-run
/// through the new one (``Engine/upgradeCheck(_:against:migrations:)``, what the whole-store
/// check runs per session). Baseline: ``Engine/verify(_:against:)`` alone, the re-run half.
func registerUpgradeCheckBenchmarks() {
    let box = FixtureBox<UpgradeCheckFixture>()
    Benchmark(
        "14 upgrade check of 66-version sessions (sessions/s): Rewind",
        configuration: .init(
            metrics: [.throughput, .wallClock], scalingFactor: .kilo, maxDuration: .seconds(5), maxIterations: 50),
        closure: { benchmark in
            guard let fixture = box.value else { return benchmark.error("no fixture") }
            do {
                for index in benchmark.scaledIterations {
                    blackHole(try fixture.engine.upgradeCheck(fixture.session(index), against: fixture.next))
                }
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: { box.value = try await UpgradeCheckFixture(sessions: 1_000, events: 64) },
        teardown: { box.value?.close() })

    let verifying = FixtureBox<UpgradeCheckFixture>()
    Benchmark(
        "14 upgrade check of 66-version sessions (sessions/s): baseline, verify alone",
        configuration: .init(
            metrics: [.throughput, .wallClock], scalingFactor: .kilo, maxDuration: .seconds(5), maxIterations: 50),
        closure: { benchmark in
            guard let fixture = verifying.value else { return benchmark.error("no fixture") }
            do {
                for index in benchmark.scaledIterations {
                    blackHole(try fixture.engine.verify(fixture.session(index), against: fixture.next))
                }
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: { verifying.value = try await UpgradeCheckFixture(sessions: 1_000, events: 64) },
        teardown: { verifying.value?.close() })
}

/// A store of `sessions` sessions of the cycling flat machine, each sent `events` events, and the
/// machine's next definition (one more state, reached by a new event).
final class UpgradeCheckFixture: @unchecked Sendable {
    let fixture: EngineFixture
    let next: Machine
    let ids: [SessionID]

    var engine: Engine { fixture.engine }

    init(sessions: Int, events: Int) async throws {
        fixture = try await EngineFixture(durability: .noSync, sessions: sessions)
        try await fixture.run(transitions: sessions * events)
        try fixture.engine.flush()
        var definition = BenchMachines.flat
        definition.states[3].transitions.append(TransitionDefinition(events: ["settings"], targets: ["settings"]))
        definition.states.append(StateDefinition(id: "settings"))
        next = try Machine(definition)
        ids = try (0..<sessions).map { try SessionID("user-\($0)") }
    }

    /// The session a unit checks.
    func session(_ index: Int) -> SessionID {
        ids[index % ids.count]
    }

    func close() { fixture.close() }
}
