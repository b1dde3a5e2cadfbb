import ArgumentParser
import Foundation
import Rewind

/// `rewind demo`: the main job. Runs the example flows for many simulated users through the real
/// engine, durably, on the demo store, then shows what the log can answer.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the example flows (onboarding, map, Kanji) for simulated users on the demo store.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Option(help: "How many simulated users (sessions) to add.")
    var sessions: Int = 300

    @Option(help: "How many users act at the same time (their commits are grouped).")
    var concurrency: Int = 32

    @Option(help: "The seed of the simulated users' choices.")
    var seed: UInt64 = 2026

    @Flag(
        help:
            "Delete the store first and start over (only a Rewind store: anything else is refused and left untouched).")
    var fresh = false

    struct Summary: Encodable {
        var store: String
        var created: Bool
        var sessionsAdded: Int
        var transitionsAdded: Int
        var seconds: Double
        var transitionsPerSecond: Double
        var averageBatch: Double
        var totalSessions: Int
        var totalRecords: UInt64
        /// The funnel of each flow, as the text output's funnels show.
        var funnels: [DemoReport.Funnel]
        /// The Kanji navigation stacks, as the text output shows them.
        var navigation: DemoReport.Stacks
    }

    func validate() throws {
        guard sessions >= 0, sessions <= 1_000_000 else {
            throw ValidationError("--sessions must be between 0 and 1000000")
        }
        guard concurrency >= 1, concurrency <= 4096 else {
            throw ValidationError("--concurrency must be between 1 and 4096")
        }
    }

    func run() async throws {
        if fresh {
            try StoreRemoval.remove(storeOptions.store)
        }
        let created = storeOptions.namesNoStore
        let engine = try ExampleCatalog.engine(directory: storeOptions.store, durability: .durable)
        defer { engine.close() }
        if !output.json {
            print("Demo store: \(engine.store.path) (\(created ? "created" : "reused; --fresh starts over"))")
        }

        let users = try makeUsers(existing: engine.sessions().count)
        let progress = output.json ? nil : ProgressBar(title: "simulating", total: users.count)
        let started = ContinuousClock.now
        let transitions = try await run(users, on: engine, progress: progress)
        let seconds = (ContinuousClock.now - started).seconds
        progress?.finish()

        let summary = Summary(
            store: engine.store.path, created: created, sessionsAdded: users.count,
            transitionsAdded: transitions, seconds: seconds,
            transitionsPerSecond: seconds > 0 ? Double(transitions) / seconds : 0,
            averageBatch: engine.commitStatistics.averageBatch,
            totalSessions: try engine.sessions().count, totalRecords: try engine.store.headSequence(),
            funnels: try DemoReport(engine: engine).funnels(), navigation: try DemoReport(engine: engine).stacks())
        if output.json {
            try Terminal.printJSON(summary)
            return
        }
        print(
            """
            \(summary.sessionsAdded) users, \(summary.transitionsAdded) transitions appended durably in \
            \(String(format: "%.2f", seconds)) s (\(Int(summary.transitionsPerSecond)) transitions/s, \
            \(String(format: "%.1f", summary.averageBatch)) per group commit)
            store now holds \(summary.totalSessions) sessions, \(summary.totalRecords) records
            """)
        try DemoReport(engine: engine).print()
    }

    /// The users of this run, their sessions numbered after the `existing` ones.
    private func makeUsers(existing: Int) throws -> [SimulatedUser] {
        var random = SeededGenerator(seed: seed &+ UInt64(existing))
        var users: [SimulatedUser] = []
        users.reserveCapacity(sessions)
        for index in 0..<sessions {
            let number = existing + index + 1
            switch index % 3 {
            case 0: users.append(.onboarding(try SessionID("onboarding-\(number)"), using: &random))
            case 1: users.append(.map(try SessionID("map-\(number)"), using: &random))
            default: users.append(.kanji(try SessionID("kanji-\(number)"), using: &random))
            }
        }
        return users
    }

    /// Runs `users` with at most ``concurrency`` at a time; returns the transitions recorded.
    private func run(_ users: [SimulatedUser], on engine: Engine, progress: ProgressBar?) async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            var iterator = users.makeIterator()
            for _ in 0..<concurrency {
                guard let user = iterator.next() else { break }
                group.addTask { try await user.run(on: engine) }
            }
            var total = 0
            var done = 0
            while let count = try await group.next() {
                total += count
                done += 1
                progress?.update(done)
                if let user = iterator.next() {
                    group.addTask { try await user.run(on: engine) }
                }
            }
            return total
        }
    }
}
