import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// A gathering commit thread waits, after a commit, for the senders it acknowledged (bounded by
/// that commit's duration), so a sender coming back joins the appends already waiting instead of
/// getting a commit of its own.
///
/// The scenarios set their preconditions explicitly (a commit held until released, an append
/// seen waiting) rather than by timing, so they hold on a loaded machine; the one timing they
/// need, a sender coming back within the bound, gets a bound of seconds.
struct CommitGatheringTests {
    /// What the commits did in the scenario (counters after it minus before), and how long the
    /// sends took.
    struct Outcome {
        var commits: UInt64
        var largestBatch: Int
        var gatheringWaits: UInt64
        var gatheringTimeouts: UInt64
        /// a's first send (its commit held for `hold` after b's append was seen waiting).
        var aLatency: Duration
        var bLatency: Duration
    }

    /// Sessions "a" and "b": a's send is committed alone, held until b's send is waiting for the
    /// next commit and `hold` more has passed; once a's send returns and the commit thread waits
    /// for it (or b's append is committed, without gathering), a sends again (`aComesBack`), or
    /// never.
    func scenario(
        durability: Durability, gathering: CommitGathering, aComesBack: Bool, hold: Duration
    ) async throws -> Outcome {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.LoadingView.machine()]) {
            $0.durability = durability
            $0.commitGathering = gathering
        }
        defer { engine.close() }
        let a = try await engine.startSession(id: "a", machine: "loading-view")
        let b = try await engine.startSession(id: "b", machine: "loading-view")
        // Until any wait after the set-up's commits has ended (each is bounded by a commit's
        // duration).
        while engine.commits.isBusy { try await Task.sleep(for: .milliseconds(1)) }
        let before = engine.commitStatistics
        #expect(before.largestBatch == 1)

        let held = HeldCommit(sessions: ["a"])
        engine.commits.injectFaults { held($0) }
        let clock = ContinuousClock()
        let first = Task {
            let start = clock.now
            try await a.send("loaded")
            let latency = clock.now - start
            // Once the commit thread waits for it (well within the bound: a's commit took more
            // than `hold`), or, without gathering, once b's append is committed on its own.
            if aComesBack {
                while !engine.commits.isGathering, b.version < 2 { try await Task.sleep(for: .milliseconds(1)) }
                try await a.send("reload")
            }
            return latency
        }
        while !held.started { try await Task.sleep(for: .milliseconds(1)) }
        let second = Task {
            let start = clock.now
            try await b.send("loaded")
            return clock.now - start
        }
        while engine.commits.pendingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: hold)
        held.release()
        let aLatency = try await first.value
        let bLatency = try await second.value
        // Until the wait the last commit started has ended (at its bound or when it gathered).
        while engine.commits.isBusy { try await Task.sleep(for: .milliseconds(1)) }
        let after = engine.commitStatistics
        #expect(after.appends - before.appends == (aComesBack ? 3 : 2))
        #expect(a.version == (aComesBack ? 3 : 2))
        #expect(b.version == 2)
        return Outcome(
            commits: after.commits - before.commits, largestBatch: after.largestBatch,
            gatheringWaits: after.gatheringWaits - before.gatheringWaits,
            gatheringTimeouts: after.gatheringTimeouts - before.gatheringTimeouts,
            aLatency: aLatency, bLatency: bLatency)
    }

    @Test func aSenderComingBackJoinsTheAppendsAlreadyWaiting() async throws {
        let outcome = try await scenario(
            durability: .durable, gathering: .automatic, aComesBack: true, hold: .seconds(3))
        // [a], then b's and a's second append together: the thread waited after each commit,
        // and only the last wait (nobody came back) ended at its bound.
        #expect(outcome.commits == 2)
        #expect(outcome.largestBatch == 2)
        #expect(outcome.gatheringWaits == 2)
        #expect(outcome.gatheringTimeouts == 1)
    }

    @Test func aWaitForSendersThatDoNotComeBackEndsAtItsBound() async throws {
        // b's append waits for a (who never sends again), as long as a's commit took and no longer.
        let hold = Duration.seconds(1)
        let outcome = try await scenario(
            durability: .durable, gathering: .acknowledgedSenders, aComesBack: false, hold: hold)
        #expect(outcome.commits == 2)
        #expect(outcome.largestBatch == 1)
        // After b's commit nobody was waiting and b's was the only append: no wait then (a lone
        // sender commits on its own thread instead).
        #expect(outcome.gatheringWaits == 1)
        #expect(outcome.gatheringTimeouts == 1)
        // b waited for a's commit (more than `hold`), then for a again until the wait's bound
        // (counted above as the one timeout). No upper bound on the clock: a loaded machine
        // may take any time.
        #expect(outcome.bLatency >= hold * 2)
    }

    @Test(arguments: [
        (Durability.durable, CommitGathering.immediate),
        (Durability.noSync, CommitGathering.automatic),
    ])
    func withoutGatheringEachCommitTakesWhatIsWaiting(durability: Durability, gathering: CommitGathering) async throws {
        // b's append is committed as soon as a's is; a's second one gets a commit of its own.
        let outcome = try await scenario(
            durability: durability, gathering: gathering, aComesBack: true, hold: .milliseconds(300))
        #expect(outcome.commits == 3)
        #expect(outcome.largestBatch == 1)
        #expect(outcome.gatheringWaits == 0)
        #expect(outcome.gatheringTimeouts == 0)
    }

    @Test(arguments: [
        (CommitGathering.automatic, Durability.durable, true),
        (.automatic, .lastCommitMayRollBack, true),
        (.automatic, .noSync, false),
        (.immediate, .durable, false),
        (.immediate, .lastCommitMayRollBack, false),
        (.immediate, .noSync, false),
        (.acknowledgedSenders, .durable, true),
        (.acknowledgedSenders, .noSync, true),
    ])
    func automaticGathersOnlyWhenCommitsAreSynced(gathering: CommitGathering, durability: Durability, gathers: Bool) {
        #expect(gathering.gathers(for: durability) == gathers)
    }
}
