import ArgumentParser
import Foundation
import Rewind

/// `rewind bench`: a quick transition-throughput run on a temporary store. (The full comparison
/// with raw LMDB and SQLite is the `Benchmarks/` package.)
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Measure transition latency and throughput on a temporary store at each durability level, alone and in group commits."
    )

    @OptionGroup var output: OutputOptions

    @Option(help: "Transitions per run.")
    var transitions: Int = 2_000

    @Option(help: "Concurrent sessions for the group-commit run.")
    var sessions: Int = 64

    struct Result: Encodable {
        var run: String
        var sessions: Int
        var transitions: Int
        var seconds: Double
        var transitionsPerSecond: Double
        var p50Microseconds: Double
        var p99Microseconds: Double
        var averageBatch: Double
    }

    func validate() throws {
        guard transitions >= 1, transitions <= 10_000_000 else {
            throw ValidationError("--transitions must be from 1 to 10000000")
        }
        guard sessions >= 1, sessions <= 4096 else { throw ValidationError("--sessions must be from 1 to 4096") }
    }

    func run() async throws {
        // One commit per transition (a session alone), then group commits, at each level.
        let runs: [(String, Durability, Int)] = [
            ("durable, 1 session", .durable, 1),
            ("lastCommitMayRollBack, 1 session", .lastCommitMayRollBack, 1),
            ("no-sync, 1 session", .noSync, 1),
            ("durable, group commit", .durable, sessions),
            ("lastCommitMayRollBack, group commit", .lastCommitMayRollBack, sessions),
            ("no-sync, group commit", .noSync, sessions),
        ]
        var results: [Result] = []
        for (name, durability, sessionCount) in runs {
            if !output.json { FileHandle.standardError.write(Data("running \(name)\(Glyphs.current.ellipsis)\n".utf8)) }
            results.append(try await measure(name, durability: durability, sessions: sessionCount))
        }
        if output.json {
            try Terminal.printJSON(results)
            return
        }
        print(
            Terminal.table(
                [
                    "RUN", "SESSIONS", "TRANSITIONS/S", "P50 \(Glyphs.current.microseconds)",
                    "P99 \(Glyphs.current.microseconds)", "PER COMMIT",
                ],
                results.map {
                    [
                        $0.run, String($0.sessions), String(Int($0.transitionsPerSecond)),
                        String(format: "%.0f", $0.p50Microseconds), String(format: "%.0f", $0.p99Microseconds),
                        String(format: "%.1f", $0.averageBatch),
                    ]
                }))
    }

    /// Sends `transitions` ticks spread over `sessions` concurrent sessions of a one-state machine.
    private func measure(_ name: String, durability: Durability, sessions: Int) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rewind-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let engine = try Engine(directory: directory.path, configuration: EngineConfiguration(durability: durability))
        defer { engine.close() }
        let definition = MachineDefinition("ticker") {
            StateNode("idle") { On("tick", to: "idle") }
        }
        try engine.register(try Machine(definition))
        var handles: [Session] = []
        for index in 0..<sessions {
            handles.append(try await engine.startSession(id: "s\(index)", machine: "ticker"))
        }
        let perSession = max(1, transitions / sessions)
        let clock = ContinuousClock()
        let started = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for session in handles {
                group.addTask {
                    var latencies: [Double] = []
                    latencies.reserveCapacity(perSession)
                    for _ in 0..<perSession {
                        let sent = clock.now
                        try await session.send("tick")
                        latencies.append((clock.now - sent).seconds * 1e6)
                    }
                    return latencies
                }
            }
            return try await group.reduce(into: [Double]()) { $0 += $1 }
        }.sorted()
        let seconds = (clock.now - started).seconds
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        }
        let statistics = engine.commitStatistics
        return Result(
            run: name, sessions: sessions, transitions: latencies.count, seconds: seconds,
            transitionsPerSecond: Double(latencies.count) / max(seconds, 1e-9),
            p50Microseconds: percentile(0.5), p99Microseconds: percentile(0.99),
            averageBatch: statistics.averageBatch)
    }
}
