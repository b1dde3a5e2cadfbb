import Benchmark
import BenchmarkMachines
import Rewind

/// Item 1: transition evaluation with no persistence, against the dictionary machine: the general
/// `Machine.send(_:in:) -> Step` and the prepared-event path (`Machine.prepare(_:)`, then
/// `send(_:in: &state)`), on the same machines and cycles.
func registerInMemoryBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        scalingFactor: .kilo, maxDuration: .seconds(3), maxIterations: 2_000)

    Benchmark("1 in-memory flat: dictionary baseline", configuration: configuration) { benchmark in
        let machine = DictionaryMachine()
        var state = DictionaryMachine.Screen.greeting
        let cycle = DictionaryMachine.cycle
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            state = machine.send(cycle[index % cycle.count], in: state) ?? state
        }
        benchmark.stopMeasurement()
        blackHole(state)
    }

    func machineBenchmark(_ name: String, _ definition: MachineDefinition, prefix: [Event], cycle: [Event]) {
        Benchmark(name, configuration: configuration) { benchmark in
            do {
                let machine = try Machine(definition)
                var state = try machine.start().state
                for event in prefix { state = try machine.send(event, in: state).state }
                benchmark.startMeasurement()
                for index in benchmark.scaledIterations {
                    state = try machine.send(cycle[index % cycle.count], in: state).state
                }
                benchmark.stopMeasurement()
                blackHole(state)
            } catch {
                benchmark.error("\(name): \(error)")
            }
        }
    }

    /// The same walk through prepared events: the state changes in place and no `Step` is built.
    func preparedBenchmark(_ name: String, _ definition: MachineDefinition, prefix: [Event], cycle: [Event]) {
        Benchmark(name, configuration: configuration) { benchmark in
            do {
                let machine = try Machine(definition)
                var state = try machine.start().state
                for event in prefix { state = try machine.send(event, in: state).state }
                let prepared = cycle.map { machine.prepare($0) }
                benchmark.startMeasurement()
                for index in benchmark.scaledIterations {
                    blackHole(try machine.send(prepared[index % prepared.count], in: &state))
                }
                benchmark.stopMeasurement()
                blackHole(state)
            } catch {
                benchmark.error("\(name): \(error)")
            }
        }
    }

    machineBenchmark(
        "1 in-memory flat: Rewind", BenchMachines.flat, prefix: [Event("launch")], cycle: BenchMachines.flatCycle)
    machineBenchmark(
        "1 in-memory hierarchical: Rewind", BenchMachines.hierarchical, prefix: [],
        cycle: BenchMachines.hierarchicalCycle)
    machineBenchmark(
        "1 in-memory parallel: Rewind", BenchMachines.parallel, prefix: [], cycle: BenchMachines.parallelCycle)
    preparedBenchmark(
        "1 in-memory flat: Rewind prepared", BenchMachines.flat, prefix: [Event("launch")],
        cycle: BenchMachines.flatCycle)
    preparedBenchmark(
        "1 in-memory hierarchical: Rewind prepared", BenchMachines.hierarchical, prefix: [],
        cycle: BenchMachines.hierarchicalCycle)
    preparedBenchmark(
        "1 in-memory parallel: Rewind prepared", BenchMachines.parallel, prefix: [],
        cycle: BenchMachines.parallelCycle)
}
