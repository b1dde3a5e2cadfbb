import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Many sessions sending at once share group commits; every acknowledged record is in the log
/// exactly once, each session's records in the order sent, the global sequence gap-free.
struct GroupCommitTests {
    /// What one sender was acknowledged: (version, event) in the order its sends returned.
    typealias Acknowledgements = [(version: UInt64, event: String)]

    /// `sessions` concurrent senders, each starting a LoadingView session and then sending
    /// `transitions` events (alternating `loaded` with a payload and `reload`).
    func run(
        sessions: Int, transitions: Int, durability: Durability
    ) async throws -> (Engine, EngineFixture, [String: Acknowledgements]) {
        let fixture = try EngineFixture()
        let engine = try fixture.open(registering: [try ExampleMachines.LoadingView.machine()], durability: durability)
        let acknowledged = try await withThrowingTaskGroup(of: (String, Acknowledgements).self) { group in
            for index in 0..<sessions {
                group.addTask {
                    let id = "session-\(index)"
                    let session = try await engine.startSession(id: id, machine: "loading-view")
                    var acks: Acknowledgements = [(session.version, StepRecording.startEvent)]
                    acks.reserveCapacity(transitions + 1)
                    for step in 0..<transitions {
                        if step % 2 == 0 {
                            try await session.send("loaded", payload: ["n": .number(Double(step))])
                            acks.append((session.version, "loaded"))
                        } else {
                            try await session.send("reload")
                            acks.append((session.version, "reload"))
                        }
                    }
                    return (id, acks)
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        return (engine, fixture, acknowledged)
    }

    func verify(_ engine: Engine, _ acknowledged: [String: Acknowledgements], sessions: Int, transitions: Int) throws {
        let audit = try LogAudit(engine.writableStore)
        #expect(audit.problems.isEmpty, "\(audit.problems.prefix(5))")
        #expect(audit.records.count == sessions * (transitions + 1))
        var bySession: [String: [TransitionRecord]] = [:]
        for record in audit.records { bySession[record.session.rawValue, default: []].append(record) }
        #expect(bySession.count == sessions)
        let coder = JSONPayloadCoder()
        for (id, acks) in acknowledged {
            let records = bySession[id] ?? []
            // Every acknowledged version is present once, with the event sent, in send order.
            #expect(records.map(\.version) == acks.map(\.version), "\(id)")
            #expect(records.map(\.event) == acks.map(\.event), "\(id)")
            #expect(acks.map(\.version) == Array(1...UInt64(transitions + 1)), "\(id)")
            let numbers = try records.filter { $0.event == "loaded" }.map {
                try coder.decode(JSONValue.self, from: $0.payload)["n"]?.doubleValue ?? -1
            }
            #expect(numbers == stride(from: 0, to: transitions, by: 2).map(Double.init), "\(id)")
        }
        let statistics = engine.commitStatistics
        #expect(statistics.appends == UInt64(sessions * (transitions + 1)))
        #expect(statistics.largestBatch > 1)
        #expect(statistics.commits < statistics.appends)
    }

    @Test(.hangGuard)
    func sixtyFourSessionsTimesAThousandDurableTransitions() async throws {
        let start = ContinuousClock.now
        let (engine, fixture, acknowledged) = try await run(sessions: 64, transitions: 1_000, durability: .durable)
        defer { fixture.remove() }
        defer { engine.close() }
        let elapsed = ContinuousClock.now - start
        try verify(engine, acknowledged, sessions: 64, transitions: 1_000)
        let statistics = engine.commitStatistics
        print(
            "group commit, 64 × 1000 durable: \(elapsed), \(statistics.commits) commits, "
                + "average batch \(statistics.averageBatch), largest \(statistics.largestBatch)")
    }

    @Test func concurrentNoSyncSessionsShareCommits() async throws {
        let (engine, fixture, acknowledged) = try await run(sessions: 16, transitions: 100, durability: .noSync)
        defer { fixture.remove() }
        defer { engine.close() }
        try verify(engine, acknowledged, sessions: 16, transitions: 100)
    }

    @Test func oneSessionsConcurrentSendsKeepTheirOrderAndNeverInterleave() async throws {
        // Sends to one session from many tasks: each is its own step, none lost, versions contiguous.
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "ticker", machine: TickerMachine.name)
        let sent = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<50 {
                        let payload: JSONValue = ["task": .number(Double(task)), "i": .number(Double(index))]
                        let step = try await session.send(TickerMachine.tick, payload: payload)
                        #expect(step.target == ["idle"])
                    }
                    return 50
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(sent == 400)
        #expect(session.version == 401)
        let audit = try LogAudit(engine.writableStore)
        #expect(audit.problems.isEmpty)
        #expect(audit.records.count == 401)
        // Each task's sends were recorded in the order it made them.
        let coder = JSONPayloadCoder()
        var perTask: [Double: [Double]] = [:]
        for record in audit.records.dropFirst() {
            let payload = try coder.decode(JSONValue.self, from: record.payload)
            perTask[payload["task"]?.doubleValue ?? -1, default: []].append(payload["i"]?.doubleValue ?? -1)
        }
        #expect(perTask.count == 8)
        #expect(perTask.values.allSatisfy { $0 == (0..<50).map(Double.init) })
    }
}

/// A session sending alone commits on its own task (no hop to the commit queue): one commit per
/// append, and failures there are as clean as in a batch.
struct LoneSessionCommitTests {
    struct Refused: Error {}

    @Test func aLoneSessionCommitsEachAppendOnItsOwnAndAFailureThereWritesNothing() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.LoadingView.machine()], durability: .noSync)
        defer { engine.close() }
        let session = try await engine.startSession(id: "alone", machine: "loading-view")
        for step in 0..<20 {
            try await session.send(step % 2 == 0 ? "loaded" : "reload")
        }
        let statistics = engine.commitStatistics
        #expect(statistics.appends == 21)
        #expect(statistics.commits == 21)
        #expect(statistics.largestBatch == 1)
        // From its third append on (the first two make it "alone"), each one is committed on the
        // session's own thread (its commits do not sync). (A commit thread preempted right after
        // resuming the session can still take the odd append: most, not all.)
        #expect(statistics.inlineCommits >= 10)

        // The session is alone: this send takes the inline path, and the fault must leave
        // everything as it was.
        let before = session.snapshot
        engine.commits.injectFaults { _ in Refused() }
        await #expect(throws: Refused.self) { try await session.send("loaded") }
        engine.commits.injectFaults(nil)
        #expect(session.snapshot == before)
        #expect(try engine.store.headSequence() == 21)
        try await session.send("loaded")
        #expect(session.version == 22)
        #expect(try LogAudit(engine.writableStore).problems.isEmpty)
    }

    /// A synced commit never runs on the sender's thread (a thread of Swift's cooperative pool):
    /// a lone durable session's appends all go to the commit thread, and so do a lone no-sync
    /// session's once another engine of the process has made the store's commits sync.
    @Test func syncedCommitsOfALoneSessionRunOnTheCommitThread() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.LoadingView.machine()], durability: .durable)
        defer { engine.close() }
        let session = try await engine.startSession(id: "alone", machine: "loading-view")
        for step in 0..<20 {
            try await session.send(step % 2 == 0 ? "loaded" : "reload")
        }
        #expect(engine.commitStatistics.commits == 21)
        #expect(engine.commitStatistics.inlineCommits == 0)

        let noSync = try fixture.open(registering: [try ExampleMachines.LoadingView.machine()], durability: .noSync)
        defer { noSync.close() }
        #expect(try noSync.effectiveDurability == .durable)
        let other = try await noSync.startSession(id: "other", machine: "loading-view")
        for step in 0..<20 {
            try await other.send(step % 2 == 0 ? "loaded" : "reload")
        }
        #expect(noSync.commitStatistics.commits == 21)
        #expect(noSync.commitStatistics.inlineCommits == 0)
    }
}
