import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// `engine.records(from:)`: the log from a sequence on, then live commits, each record once.
struct SubscriptionTests {
    /// Starts `sessions` ticker sessions sending `ticks` each, concurrently.
    func startSenders(_ engine: Engine, sessions: Int, ticks: Int) -> Task<Void, any Error> {
        Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<sessions {
                    group.addTask {
                        let session = try await engine.startSession(id: "ticker-\(index)", machine: TickerMachine.name)
                        for _ in 0..<ticks { try await session.send(TickerMachine.tick) }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test(.hangGuard)
    func aSubscriptionStartedMidStreamSeesEveryRecordOnceInOrder() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let sessions = 8
        let ticks = 150
        let total = UInt64(sessions * (ticks + 1))
        let senders = startSenders(engine, sessions: sessions, ticks: ticks)
        // Wait until the senders are well under way, then subscribe from a point behind the head.
        while try engine.store.headSequence() < 200 { try await Task.sleep(for: .milliseconds(1)) }
        let start = try engine.store.headSequence() - 100
        var received: [TransitionRecord] = []
        for try await record in engine.records(from: start) {
            received.append(record)
            if record.sequence == total { break }
        }
        try await senders.value
        #expect(received.map(\.sequence) == Array(start...total))
        // The records are the stored ones.
        #expect(received == (try engine.store.records(from: start)))
    }

    @Test(.hangGuard)
    func aSubscriptionFromTheStartReadsTheLogThenFollowsNewCommits() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "ticker", machine: TickerMachine.name)
        for _ in 0..<9 { try await session.send(TickerMachine.tick) }
        let reader = Task {
            var sequences: [UInt64] = []
            for try await record in engine.records() {
                sequences.append(record.sequence)
                if sequences.count == 20 { break }
            }
            return sequences
        }
        for _ in 0..<10 {
            try await Task.sleep(for: .milliseconds(2))
            try await session.send(TickerMachine.tick)
        }
        #expect(try await reader.value == Array(1...20))
    }

    @Test(.hangGuard)
    func cancellingTheTaskEndsTheIteration() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "ticker", machine: TickerMachine.name)
        try await session.send(TickerMachine.tick)
        let seen = LockedBox(0)
        let reader = Task {
            for try await _ in engine.records() { seen.withValue { $0 += 1 } }
            return "ended"
        }
        // Let the reader catch up and wait for new commits, then cancel it.
        while seen.current < 2 { try await Task.sleep(for: .milliseconds(1)) }
        while engine.notifier.waitingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
        reader.cancel()
        #expect(try await reader.value == "ended")
        #expect(seen.current == 2)
        // A commit after the cancellation reaches nobody, and the engine still works.
        try await session.send(TickerMachine.tick)
        #expect(seen.current == 2)
    }

    @Test(.hangGuard)
    func cancellingTheTaskEndsTheIterationWithinABatch() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "ticker", machine: TickerMachine.name)
        for _ in 0..<9 { try await session.send(TickerMachine.tick) }
        // The first `next()` reads all ten records in one batch; after the cancellation none of
        // the nine still held is returned.
        let reader = Task {
            var iterator = engine.records().makeAsyncIterator()
            let first = try await iterator.next()
            withUnsafeCurrentTask { $0?.cancel() }
            return (first?.sequence, try await iterator.next()?.sequence)
        }
        let (first, afterCancel) = try await reader.value
        #expect(first == 1)
        #expect(afterCancel == nil)
    }

    @Test(.hangGuard)
    func closingTheEngineEndsAWaitingIteration() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        let session = try await engine.startSession(id: "ticker", machine: TickerMachine.name)
        try await session.send(TickerMachine.tick)
        let seen = LockedBox(0)
        let reader = Task {
            for try await _ in engine.records() { seen.withValue { $0 += 1 } }
            return "ended"
        }
        while seen.current < 2 { try await Task.sleep(for: .milliseconds(1)) }
        while engine.notifier.waitingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
        engine.close()
        #expect(try await reader.value == "ended")
    }

    @Test func closingTheEngineEndsAnIterationThatHasReadEverything() async throws {
        // The iterator has delivered every record and asks for the next after the close: the
        // iteration ends; it does not fail on the closed store.
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        let session = try await engine.startSession(id: "ticker", machine: TickerMachine.name)
        try await session.send(TickerMachine.tick)
        var iterator = engine.records().makeAsyncIterator()
        #expect(try await iterator.next()?.sequence == 1)
        #expect(try await iterator.next()?.sequence == 2)
        engine.close()
        #expect(try await iterator.next() == nil)
    }

    @Test(.hangGuard)
    func aLongCatchUpCrossesReadBatchesWithoutGapOrDuplicate() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let senders = startSenders(engine, sessions: 4, ticks: 400)
        try await senders.value
        let head = try engine.store.headSequence()
        #expect(head == 4 * 401)
        let reader = Task {
            var sequences: [UInt64] = []
            for try await record in engine.records(from: 7) {
                sequences.append(record.sequence)
                if record.sequence == head + 1 { break }
            }
            return sequences
        }
        let session = try engine.session("ticker-0")
        try await session.send(TickerMachine.tick)
        #expect(try await reader.value == Array(7...(head + 1)))
    }
}

/// Commits of other writers of the store (another engine here; another process alike: neither
/// wakes this engine's subscribers directly) reach a caught-up subscription by polling the log's
/// head, or, with polling off, at this engine's next commit.
struct ExternalCommitSubscriptionTests {
    /// Engine A (polling as `interval` says) subscribed from the start with a reader collecting
    /// sequences; engine B on the same store.
    func twoEngines(pollingEvery interval: Duration?) throws -> (EngineFixture, Engine, Engine) {
        let fixture = try EngineFixture()
        let a = try fixture.open(registering: [try TickerMachine.machine()]) {
            $0.durability = .noSync
            $0.externalCommitPollInterval = interval
        }
        let b = try fixture.open(registering: [try TickerMachine.machine()], durability: .noSync)
        return (fixture, a, b)
    }

    /// Starts a reader of `engine`'s whole log that collects the sequences it sees, and returns
    /// once it is caught up and suspended, waiting for a commit.
    func startReader(of engine: Engine) async throws -> (Task<Void, any Error>, LockedBox<[UInt64]>) {
        let seen = LockedBox<[UInt64]>([])
        let reader = Task {
            for try await record in engine.records() { seen.withValue { $0.append(record.sequence) } }
        }
        while engine.notifier.waitingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
        return (reader, seen)
    }

    /// Waits until `box` holds at least `count` sequences (the test's hang guard bounds it).
    func waitUntil(_ box: LockedBox<[UInt64]>, holds count: Int) async throws {
        while box.current.count < count { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// Engine A (polling as `interval` says) with a caught-up reader of its log, and engine B on
    /// the same store, which starts a session and sends a tick (sequences 1 and 2); then `body`
    /// runs with A, B's session and what the reader has seen.
    func withAnotherWriter(
        pollingEvery interval: Duration?, _ body: (Engine, Session, LockedBox<[UInt64]>) async throws -> Void
    ) async throws {
        let (fixture, a, b) = try twoEngines(pollingEvery: interval)
        defer { fixture.remove() }
        defer { a.close() }
        defer { b.close() }
        // The store is empty: the reader is caught up and waits.
        let (reader, seen) = try await startReader(of: a)
        defer { reader.cancel() }
        // While the reader waits, a poller runs exactly when polling is on.
        #expect(a.notifier.isPolling == (interval != nil))
        let session = try await b.startSession(id: "elsewhere", machine: TickerMachine.name)
        try await session.send(TickerMachine.tick)
        try await body(a, session, seen)
    }

    @Test(.hangGuard)
    func anotherWritersCommitsReachACaughtUpSubscription() async throws {
        // Engine A never commits.
        try await withAnotherWriter(pollingEvery: .milliseconds(20)) { _, session, seen in
            try await waitUntil(seen, holds: 2)
            #expect(seen.current == [1, 2])
            try await session.send(TickerMachine.tick)
            try await waitUntil(seen, holds: 3)
            #expect(seen.current == [1, 2, 3])
        }
    }

    @Test(.hangGuard)
    func withPollingOffTheyArriveAtThisEnginesNextCommit() async throws {
        try await withAnotherWriter(pollingEvery: nil) { a, _, seen in
            // B has committed and A's reader waits, with no poller to read the head: nothing can
            // reach it before A's own commit (with polling on, a poller runs while it waits).
            #expect(a.notifier.waitingCount == 1)
            #expect(!a.notifier.isPolling)
            #expect(seen.current.isEmpty)
            _ = try await a.startSession(id: "here", machine: TickerMachine.name)
            try await waitUntil(seen, holds: 3)
            #expect(seen.current == [1, 2, 3])
        }
    }
}
