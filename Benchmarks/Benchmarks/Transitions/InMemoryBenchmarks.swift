import Benchmark
import Rewind

/// Item 1: transition evaluation with no persistence, against the dictionary machine.
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

    machineBenchmark(
        "1 in-memory flat: Rewind", BenchMachines.flat, prefix: [Event("launch")], cycle: BenchMachines.flatCycle)
    machineBenchmark(
        "1 in-memory hierarchical: Rewind", BenchMachines.hierarchical, prefix: [],
        cycle: BenchMachines.hierarchicalCycle)
    machineBenchmark(
        "1 in-memory parallel: Rewind", BenchMachines.parallel, prefix: [], cycle: BenchMachines.parallelCycle)
}
