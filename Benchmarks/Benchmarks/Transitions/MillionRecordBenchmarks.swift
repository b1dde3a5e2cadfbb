import Benchmark
import BenchmarkMachines
import BenchmarkSupport
import Foundation
import Rewind

/// Item 6: projection rebuild over 1,000,000 records and replay seeks into a 1,000,000-version
/// session (the engine's real append path wrote it: snapshots every 64 versions).
func registerMillionRecordBenchmarks() {
    let rebuildBox = FixtureBox<Engine>()
    Benchmark(
        "6 projection rebuild over 1,000,000 records: Rewind",
        configuration: .init(
            metrics: [.throughput, .wallClock, .mallocCountTotal], warmupIterations: 0, scalingFactor: .mega,
            maxDuration: .seconds(10), maxIterations: 3),
        closure: { benchmark in
            guard let engine = rebuildBox.value else { return benchmark.error("no fixture") }
            do {
                let status = try engine.rebuildProjection(named: ScreenFlowProjection().name)
                blackHole(status)
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            let engine = try await MillionVersionStore.open()
            // Registered in catch-up mode: the registration's first build is not measured.
            try engine.register(ScreenFlowProjection(), mode: .catchUp)
            rebuildBox.value = engine
        },
        teardown: { rebuildBox.value?.close() })

    let seekBox = FixtureBox<(engine: Engine, cursor: ReplayCursorBox)>()
    Benchmark(
        "6 replay seek to a random version of a 1,000,000-version session: Rewind",
        configuration: .init(
            metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(4), maxIterations: 2_000),
        closure: { benchmark in
            guard let (_, cursor) = seekBox.value else { return benchmark.error("no fixture") }
            do {
                let version = cursor.nextVersion(upTo: MillionVersionStore.versions)
                blackHole(try cursor.cursor.seek(to: version))
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            let engine = try await MillionVersionStore.open()
            seekBox.value = (engine, ReplayCursorBox(try engine.replayCursor(for: MillionVersionStore.session)))
        },
        teardown: { seekBox.value?.engine.close() })
}

/// A replay cursor and the seeded generator of the versions it seeks to.
final class ReplayCursorBox: @unchecked Sendable {
    var cursor: ReplayCursor
    private var state: UInt64 = 0x9E37_79B9_7F4A_7C15

    init(_ cursor: ReplayCursor) { self.cursor = cursor }

    /// A pseudo-random version in 1...`versions` (SplitMix64, the same sequence every run).
    func nextVersion(upTo versions: UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return (z ^ (z >> 31)) % versions + 1
    }
}

/// One session of the cycling flat machine with 1,000,000 versions, written once through the
/// engine (no-sync) into the temporary directory and kept there for later runs (about 35 s to
/// write; remove `rewind-bench-1M-*` from the temporary directory to rebuild it).
enum MillionVersionStore {
    static let versions: UInt64 = 1_000_000
    static let session = "user-0"

    static var path: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-1M-v2").path
    }

    /// Opens the store, writing it first when missing or incomplete.
    static func open() async throws -> Engine {
        let complete = path + "/complete"
        if !FileManager.default.fileExists(atPath: complete) {
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let engine = try Engine(directory: path, configuration: EngineConfiguration(durability: .noSync))
            try engine.register(try Machine(BenchMachines.flat))
            let session = try await engine.startSession(id: session, machine: "onboarding-cycle")
            try await session.send("launch")
            var position = 0
            while session.version < versions {
                try await session.send(BenchMachines.flatCycle[position])
                position = (position + 1) % BenchMachines.flatCycle.count
            }
            try engine.flush()
            engine.close()
            guard FileManager.default.createFile(atPath: complete, contents: Data()) else {
                throw BenchmarkSetupError("could not mark \(path) complete")
            }
        }
        let engine = try Engine(directory: path, configuration: EngineConfiguration(durability: .noSync))
        try engine.register(try Machine(BenchMachines.flat))
        return engine
    }
}
