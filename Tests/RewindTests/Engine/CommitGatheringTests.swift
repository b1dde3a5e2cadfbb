import Foundation
@testable import Rewind
import RewindTestSupport
import Testing

/// A gathering commit thread waits, after a commit, for the senders it acknowledged (bounded by
/// that commit's duration), so a sender coming back joins the appends already waiting instead of
/// getting a commit of its own.
struct CommitGatheringTests {
    /// A fault injector that fails nothing: it holds the first commit holding session "a" for
    /// `hold` and records that it has started.
    final class HoldFirstCommitOfA: @unchecked Sendable {
        private let lock = NSLock()
        private var held = false
        private let hold: TimeInterval

        init(hold: TimeInterval) { self.hold = hold }

        /// Whether the held commit has started.
        var started: Bool { lock.withLock { held } }

        func callAsFunction(_ sessions: [SessionID]) -> (any Error)? {
            let holds = lock.withLock { () -> Bool in
                if held || sessions.map(\.rawValue) != ["a"] { return false }
                held = true
                return true
            }
            if holds { Thread.sleep(forTimeInterval: hold) }
            return nil
        }
    }

    /// What the commits did in the scenario (counters after it minus before).
    struct Outcome {
        var commits: UInt64
        var largestBatch: Int
        var gatheringWaits: UInt64
        var gatheringTimeouts: UInt64
        /// How long b's send took.
        var bLatency: Duration
    }

    /// How long a's first commit is held.
    static let hold: TimeInterval = 1

    /// Sessions "a" and "b": a's send is committed alone and held for `hold`; b sends during that
    /// commit; 0.1 s after a's send returns, a sends again (`aComesBack`), or never.
    func scenario(
        durability: Durability, gathering: CommitGathering, aComesBack: Bool
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
        // Let any wait after the set-up's commits end (each is bounded by a commit's duration).
        try await Task.sleep(for: .milliseconds(100))
        let before = engine.commitStatistics
        #expect(before.largestBatch == 1)

        let injector = HoldFirstCommitOfA(hold: Self.hold)
        engine.commits.injectFaults { injector($0) }
        let first = Task {
            try await a.send("loaded")
            // Back after 0.1 s: well within the bound (a's commit took `hold`), and long after an
            // immediate commit has taken b's append.
            if aComesBack {
                try await Task.sleep(for: .milliseconds(100))
                try await a.send("reload")
            }
        }
        while !injector.started { try await Task.sleep(for: .milliseconds(1)) }
        let second = Task {
            let clock = ContinuousClock()
            let start = clock.now
            _ = try await b.send("loaded")
            return clock.now - start
        }
        try await first.value
        let bLatency = try await second.value
        // Past the bound of any wait the last commit started.
        try await Task.sleep(for: .milliseconds(500))
        let after = engine.commitStatistics
        #expect(after.appends - before.appends == (aComesBack ? 3 : 2))
        #expect(a.version == (aComesBack ? 3 : 2))
        #expect(b.version == 2)
        return Outcome(
            commits: after.commits - before.commits, largestBatch: after.largestBatch,
            gatheringWaits: after.gatheringWaits - before.gatheringWaits,
            gatheringTimeouts: after.gatheringTimeouts - before.gatheringTimeouts, bLatency: bLatency)
    }

    @Test func aSenderComingBackJoinsTheAppendsAlreadyWaiting() async throws {
        let outcome = try await scenario(durability: .durable, gathering: .automatic, aComesBack: true)
        // [a], then b's and a's second append together: the thread waited after each commit,
        // and only the last wait (nobody came back) ended at its bound.
        #expect(outcome.commits == 2)
        #expect(outcome.largestBatch == 2)
        #expect(outcome.gatheringWaits == 2)
        #expect(outcome.gatheringTimeouts == 1)
    }

    @Test func aWaitForSendersThatDoNotComeBackEndsAtItsBound() async throws {
        // b's append waits for a (who never sends again) at most as long as a's commit took.
        let outcome = try await scenario(durability: .durable, gathering: .acknowledgedSenders, aComesBack: false)
        #expect(outcome.commits == 2)
        #expect(outcome.largestBatch == 1)
        #expect(outcome.gatheringWaits == 2)
        #expect(outcome.gatheringTimeouts == 2)
        // b waited for a's commit, then as long again but no longer (not a timing of speed: the
        // bound is the behaviour; slack for a loaded machine).
        #expect(outcome.bLatency >= .seconds(Self.hold * 2))
        #expect(outcome.bLatency < .seconds(Self.hold * 3.5))
    }

    @Test(arguments: [
        (Durability.durable, CommitGathering.immediate),
        (Durability.noSync, CommitGathering.automatic),
    ])
    func withoutGatheringEachCommitTakesWhatIsWaiting(durability: Durability, gathering: CommitGathering) async throws {
        // b's append is committed as soon as a's is; a's second one gets a commit of its own.
        let outcome = try await scenario(durability: durability, gathering: gathering, aComesBack: true)
        #expect(outcome.commits == 3)
        #expect(outcome.largestBatch == 1)
        #expect(outcome.gatheringWaits == 0)
        #expect(outcome.gatheringTimeouts == 0)
    }

    @Test(arguments: [
        (CommitGathering.automatic, Durability.durable, true),
        (.automatic, .noSync, false),
        (.immediate, .durable, false),
        (.immediate, .noSync, false),
        (.acknowledgedSenders, .durable, true),
        (.acknowledgedSenders, .noSync, true),
    ])
    func automaticGathersOnlyWhenCommitsAreSynced(gathering: CommitGathering, durability: Durability, gathers: Bool) {
        #expect(gathering.gathers(for: durability) == gathers)
    }
}
