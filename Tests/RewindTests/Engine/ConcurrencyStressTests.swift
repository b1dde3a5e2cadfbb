import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Senders that alternate between sending alone (the inline path) and together (the commit
/// thread, gathering), with random pauses, while a subscription follows the log: every send
/// returns, every acknowledged record is in the log once, in order, and the subscription sees
/// each record once.
struct ConcurrencyStressTests {
    @Test(.hangGuard, arguments: [CommitGathering.acknowledgedSenders, .immediate])
    func mixedLoneAndGroupSendersNeverHangOrLoseARecord(gathering: CommitGathering) async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()]) {
            $0.durability = .noSync
            $0.commitGathering = gathering
        }
        defer { engine.close() }
        let senders = 6
        let rounds = 300
        let reader = Task {
            var sequences: [UInt64] = []
            for try await record in engine.records() {
                sequences.append(record.sequence)
                if sequences.count == senders * (1 + rounds * 5) { break }
            }
            return sequences
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<senders {
                group.addTask {
                    var random = SeededRandom(seed: UInt64(index) &* 7919 &+ 17)
                    let session = try await engine.startSession(id: "s\(index)", machine: TickerMachine.name)
                    for _ in 0..<rounds {
                        // A burst of five: alone when the others pause, together otherwise.
                        for _ in 0..<5 {
                            try await session.send(TickerMachine.tick)
                            if random.chance(0.3) { await Task.yield() }
                        }
                        if random.chance(0.5) {
                            try await Task.sleep(for: .microseconds(Int.random(in: 0..<2_000, using: &random)))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let total = senders * (1 + rounds * 5)
        #expect(engine.commits.pendingCount == 0)
        let audit = try LogAudit(engine.writableStore)
        #expect(audit.problems.isEmpty, "\(audit.problems.prefix(5))")
        #expect(audit.records.count == total)
        #expect(try await reader.value == Array(1...UInt64(total)))
        #expect(engine.commitStatistics.appends == UInt64(total))
        print("stress \(gathering): \(engine.commitStatistics)")
    }

    /// Closing the engine while senders (alone and together) and subscriptions run: every send
    /// returns, acknowledged or with `EngineError.closed`; every subscription ends; what was
    /// acknowledged is in the log when it is opened again.
    @Test(.hangGuard, arguments: 0..<8)
    func closingWhileSendingAndFollowingEndsEverythingAndKeepsWhatWasAcknowledged(seed: Int) async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        var random = SeededRandom(seed: UInt64(seed) &+ 1)
        let engine = try fixture.open(registering: [try TickerMachine.machine()]) {
            $0.durability = seed % 2 == 0 ? .durable : .noSync
            $0.commitGathering = .acknowledgedSenders
            $0.externalCommitPollInterval = .milliseconds(1)
        }
        let readers = (0..<3).map { index in
            Task {
                var last: UInt64 = UInt64(index * 5)
                for try await record in engine.records(from: last + 1) {
                    #expect(record.sequence == last + 1)
                    last = record.sequence
                }
            }
        }
        let senders = (0..<4).map { index in
            Task { () -> UInt64 in
                let session: Session
                do {
                    session = try await engine.startSession(id: "s\(index)", machine: TickerMachine.name)
                } catch EngineError.closed {
                    return 0
                }
                while true {
                    do {
                        try await session.send(TickerMachine.tick)
                    } catch EngineError.closed {
                        return session.version
                    }
                    if index == 0 { await Task.yield() }
                }
            }
        }
        try await Task.sleep(for: .microseconds(Int.random(in: 1_000..<20_000, using: &random)))
        engine.close()
        var acknowledged: [UInt64] = []
        for sender in senders { acknowledged.append(try await sender.value) }
        for reader in readers { try await reader.value }

        let reopened = try fixture.open(registering: [try TickerMachine.machine()], durability: .noSync)
        defer { reopened.close() }
        let audit = try LogAudit(reopened.writableStore)
        #expect(audit.problems.isEmpty, "\(audit.problems.prefix(5))")
        for (index, version) in acknowledged.enumerated() {
            #expect(try reopened.store.sessionInfo(for: SessionID("s\(index)"))?.headVersion ?? 0 == version)
        }
    }

    /// An append that arrives while a lone session commits on its own thread waits, and the
    /// commit thread takes it once that commit is done (the hand-over).
    @Test(.hangGuard)
    func anAppendArrivingDuringAnInlineCommitIsHandedToTheCommitThread() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        // Not synced: only then does a lone session commit on its own thread.
        let engine = try fixture.open(registering: [try TickerMachine.machine()], durability: .noSync)
        defer { engine.close() }
        let b = try await engine.startSession(id: "b", machine: TickerMachine.name)
        let a = try await engine.startSession(id: "a", machine: TickerMachine.name)
        // Until one of a's appends commits on its own thread: then nothing is in flight, and its
        // next append commits there too, held.
        while engine.commitStatistics.inlineCommits == 0 { try await a.send(TickerMachine.tick) }
        let held = HeldCommit(sessions: ["a"])
        engine.commits.injectFaults { held($0) }
        let inline = engine.commitStatistics.inlineCommits
        let first = Task { try await a.send(TickerMachine.tick) }
        while !held.started { try await Task.sleep(for: .milliseconds(1)) }
        let second = Task { try await b.send(TickerMachine.tick) }
        while engine.commits.pendingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
        held.release()
        _ = try await first.value
        _ = try await second.value
        #expect(engine.commitStatistics.inlineCommits == inline + 1)
        #expect(engine.commits.pendingCount == 0)
        #expect(b.version == 2)
        #expect(try LogAudit(engine.writableStore).problems.isEmpty)
    }
}
