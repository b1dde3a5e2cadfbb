import Dispatch
import Foundation
import RewindStore

/// One session's append waiting for the next group commit.
struct AppendRequest: Sendable {
    /// A value written to an auxiliary database in the same transaction (a snapshot, say).
    struct AuxiliaryWrite: Sendable {
        var database: AuxiliaryDatabase
        var key: [UInt8]
        var value: [UInt8]
    }

    var session: SessionID
    var expectedVersion: ExpectedVersion
    var transitions: [TransitionDraft]
    var auxiliaryWrites: [AuxiliaryWrite]
    /// The version a new session's history begins at, when it begins trimmed (an imported or
    /// forked trimmed session: `transitions` are its versions from this one on, and
    /// `auxiliaryWrites` hold its base snapshot); `nil` for versions from the head on.
    var baseVersion: UInt64? = nil
}

/// Counters of the group commits done so far.
public struct CommitStatistics: Sendable, Hashable {
    /// LMDB write transactions committed.
    public var commits: UInt64 = 0
    /// Appends (one per session request) acknowledged.
    public var appends: UInt64 = 0
    /// The largest number of appends that shared one commit.
    public var largestBatch: Int = 0
    /// Commits that first waited for the senders the previous commit acknowledged (see
    /// ``CommitGathering/acknowledgedSenders``).
    public var gatheringWaits: UInt64 = 0
    /// Of those waits, the ones that ended at their bound (the previous commit's duration) before
    /// that many appends had arrived.
    public var gatheringTimeouts: UInt64 = 0
    /// Of ``commits``, those a session sending alone made on its own thread, without handing its
    /// append to the commit thread: when no commit is in flight, its last appends came one after
    /// the other with nobody else's in between, and commits are not synced
    /// (``Durability/noSync``; a synced commit always runs on the commit thread).
    public var inlineCommits: UInt64 = 0

    /// Appends per commit, on average.
    public var averageBatch: Double { commits == 0 ? 0 : Double(appends) / Double(commits) }
}

/// Group commit: appends submitted while a commit is in flight wait and then share the next LMDB
/// write transaction and its one sync.
///
/// With gathering on (``CommitGathering/acknowledgedSenders``), the commit thread does not start
/// the next commit the moment the previous one returns: it first waits until as many appends are
/// waiting as the previous commit acknowledged plus those that were already waiting, or until as
/// long as the previous commit took has passed. Senders in a loop then stay in one batch instead
/// of settling into two halves that take turns (one half steps while the other's commit syncs):
/// a round costs one synced commit plus the senders' stepping back instead of two synced commits,
/// and a synced commit of 60 records costs far less than two of 30 (its flushes dominate).
///
/// Appends suspend (their callers never wait for a sync on a thread of Swift's cooperative pool)
/// and a dedicated serial queue, the commit thread, commits them in batches. The one exception
/// is a commit that does not sync (``Durability/noSync``): a session sending alone that finds
/// nothing in flight writes its own append on its thread, which then does the CPU work of the
/// write transaction and no disk flush (it can still wait for LMDB's writer lock while another
/// engine or process of the store commits). Every write transaction begins and commits on one
/// thread (LMDB's writer lock belongs to the thread that takes it). Each
/// caller is resumed after the transaction holding its records has committed, with its own
/// result: a request whose expected version fails is rejected alone (the store checks it before
/// writing anything), while an LMDB failure fails every request of that transaction, none of
/// which is acknowledged. Requests are taken in submission order, so one session's appends keep
/// their order and the global sequence stays gap-free.
///
/// `@unchecked Sendable`: `lock` (a condition variable: the commit thread waits on it while it
/// gathers, which `Synchronization.Mutex` cannot do) guards every mutable property; the others
/// are immutable.
final class CommitQueue: @unchecked Sendable {
    /// An append waiting for the commit thread, and its caller. Every pending append is taken by
    /// `drain` and its continuation resumed exactly once, by `resume(_:with:)`, with its outcome
    /// or its transaction's error. `UnsafeContinuation`, not `CheckedContinuation`: the checked
    /// one allocates an object per append, and its layout is opaque outside the standard
    /// library, so each `Pending` was copied and destroyed through value witnesses (callgrind,
    /// Benchmarks/HISTORY.md 2026-12-01).
    private struct Pending {
        var request: AppendRequest
        var continuation: UnsafeContinuation<AppendResult, any Error>
    }

    private let store: TransitionStore
    private let queue = BlockingQueue(label: "rewind.commit")
    /// Guards `pending`, `isDraining`, `gatherTarget`, `statistics`, `faultInjector`,
    /// `lastSubmitter` and `soloStreak`; signalled when `pending` reaches `gatherTarget`.
    ///
    /// Those properties are `@exclusivity(unchecked)`: each is read and written only inside a
    /// short critical section of `lock` that calls nothing that could reach them again, so no two
    /// accesses overlap. Checked, they cost a dynamic exclusivity check per access, about 460
    /// instructions of a durable send (callgrind, Benchmarks/HISTORY.md 2026-12-01).
    private let lock = NSCondition()
    @exclusivity(unchecked) private var pending: [Pending] = []
    @exclusivity(unchecked) private var isDraining = false
    /// Whether the commit thread waits for the senders it acknowledged before the next commit.
    private let gathers: Bool
    /// While the commit thread gathers: how many pending appends end the wait.
    @exclusivity(unchecked) private var gatherTarget = Int.max
    @exclusivity(unchecked) private var statistics = CommitStatistics()
    @exclusivity(unchecked) private var faultInjector: (@Sendable ([SessionID]) -> (any Error)?)?
    /// The session of the last submitted append, and how many appends in a row it submitted.
    @exclusivity(unchecked) private var lastSubmitter: SessionID?
    @exclusivity(unchecked) private var soloStreak = 0
    /// A session committing alone yields its thread once per this many commits.
    static let soloYieldInterval = 16

    /// Called on the commit queue after each commit with the last global sequence it wrote.
    private let didCommit: @Sendable (UInt64) -> Void
    /// Called inside each write transaction with the records it appended, in global order, just
    /// before it commits: inline projections write their states here, in the same transaction.
    private let beforeCommit: @Sendable (StoreWriteTransaction, [TransitionRecord]) throws -> Void

    /// Whether `beforeCommit` wants the records (no inline projection: the records of a commit
    /// are not even assembled).
    private let wantsRecords: @Sendable () -> Bool
    /// Whether commits are flushed now (the store's effective sync level): a synced commit never
    /// runs inline, on a caller's thread.
    private let commitsSync: @Sendable () -> Bool

    init(
        store: TransitionStore,
        gathers: Bool = false,
        wantsRecords: @escaping @Sendable () -> Bool = { true },
        commitsSync: @escaping @Sendable () -> Bool = { true },
        beforeCommit: @escaping @Sendable (StoreWriteTransaction, [TransitionRecord]) throws -> Void = { _, _ in },
        didCommit: @escaping @Sendable (UInt64) -> Void
    ) {
        self.store = store
        self.gathers = gathers
        self.wantsRecords = wantsRecords
        self.commitsSync = commitsSync
        self.beforeCommit = beforeCommit
        self.didCommit = didCommit
    }

    /// Appends `request` in the next group commit; returns once it is committed.
    ///
    /// When no commit is in flight or waiting, one session is sending alone (its last appends
    /// came in a row) and commits are not synced, the caller commits its own request right here,
    /// on its thread (LMDB's writer lock is taken and released on it), saving the hop to the
    /// commit queue and back: a lone session pays no thread hand-off. Requests that arrive
    /// meanwhile wait, and the commit queue takes them as one batch once this commit is done.
    /// Every other request suspends until the commit thread has committed it.
    func submit(_ request: AppendRequest) async throws -> AppendResult {
        let (leads, streak, injector) = lock.withLock { () -> (Bool, Int, (@Sendable ([SessionID]) -> (any Error)?)?) in
            // Lead only while one session sends alone (its previous appends came one after the
            // other, nobody else's in between): with several senders, going through the queue
            // lets their appends pile up into batches while the commit thread syncs.
            if request.session == lastSubmitter { soloStreak += 1 } else { soloStreak = 0 }
            lastSubmitter = request.session
            if isDraining || soloStreak < 2 || commitsSync() { return (false, 0, nil) }
            isDraining = true
            return (true, soloStreak, faultInjector)
        }
        if leads {
            let written = write(CollectionOfOne(request), injector: injector)
            let outcome = written.flatMap { $0[0] }
            let handOver = lock.withLock { () -> Bool in
                if case .success = written { statistics.inlineCommits += 1 }
                if pending.isEmpty {
                    isDraining = false
                    return false
                }
                return true
            }
            if handOver { queue.start { self.drain() } }
            // This path never suspends: every `soloYieldInterval` commits in a row, let other
            // tasks run, so a busy session cannot keep its thread (and the lead) from senders that
            // became ready meanwhile. (Yielding on every commit cost a thread wake-up each time,
            // a quarter of a lone no-sync append.)
            if streak % Self.soloYieldInterval == 0 { await Task.yield() }
            return try outcome.get()
        }
        return try await withUnsafeThrowingContinuation { continuation in
            let startDrain = lock.withLock { () -> Bool in
                pending.append(Pending(request: request, continuation: continuation))
                if pending.count == gatherTarget { lock.signal() }
                if isDraining { return false }
                isDraining = true
                return true
            }
            if startDrain {
                queue.start { self.drain() }
            }
        }
    }

    /// The counters so far.
    var currentStatistics: CommitStatistics {
        lock.withLock { statistics }
    }

    /// Tests: whether a commit is running or the commit thread is still draining (its wait to
    /// gather after a commit included): `false` once everything submitted is committed and every
    /// wait has ended.
    var isBusy: Bool {
        lock.withLock { isDraining }
    }

    /// Tests: whether the commit thread is waiting, after a commit, for the senders it
    /// acknowledged to come back.
    var isGathering: Bool {
        lock.withLock { gatherTarget != .max }
    }

    /// Tests: how many appends wait for the next commit.
    var pendingCount: Int {
        lock.withLock { pending.count }
    }

    /// Tests: makes the next commits fail with the returned error (before anything is written)
    /// while `injector` returns one.
    func injectFaults(_ injector: (@Sendable ([SessionID]) -> (any Error)?)?) {
        lock.withLock { faultInjector = injector }
    }

    /// What the commit thread waits for before its next commit, when it gathers.
    private struct Gathering {
        /// Appends to wait for: those the last commit acknowledged plus those already waiting
        /// when it ended.
        var target: Int
        /// When to stop waiting: as long after the callers were resumed as the commit took.
        var deadline: Date
    }

    private func drain() {
        var gathering: Gathering?
        // The batch and the queue trade buffers each round (`swap`), and the batch is emptied in
        // place once resumed: no buffer is allocated per commit. (Copied out and emptied with
        // `removeAll(keepingCapacity:)`, the queue got a new buffer every commit, and mapping
        // the batch to its requests another; callgrind, Benchmarks/HISTORY.md 2026-12-01.)
        var batch: [Pending] = []
        while true {
            let injector = lock.withLock { () -> (@Sendable ([SessionID]) -> (any Error)?)? in
                if let gathering, pending.count < gathering.target {
                    gatherTarget = gathering.target
                    statistics.gatheringWaits += 1
                    while pending.count < gathering.target {
                        if !lock.wait(until: gathering.deadline) {
                            if pending.count < gathering.target { statistics.gatheringTimeouts += 1 }
                            break
                        }
                    }
                    gatherTarget = .max
                }
                swap(&batch, &pending)
                if batch.isEmpty { isDraining = false }
                return faultInjector
            }
            if batch.isEmpty { return }
            let started = ContinuousClock.now
            let outcome = write(batch.lazy.map(\.request), injector: injector)
            let took = ContinuousClock.now - started
            // Counted before the callers are resumed: these arrived during the commit, none of
            // them is one of its callers coming back.
            let waiting = gathers ? lock.withLock { pending.count } : 0
            resume(batch, with: outcome)
            let committed = batch.count
            while !batch.isEmpty { batch.removeLast() }  // in place (see above)
            // A lone append with nobody waiting: a session sending alone. Gathering would only
            // wait for it to come back, and keep it off the inline path in `submit`; end the
            // drain instead (its next append commits on its own thread).
            if gathers && waiting + committed > 1 {
                gathering = Gathering(
                    target: waiting + committed,
                    deadline: Date(timeIntervalSinceNow: took.seconds))
            } else {
                gathering = nil
            }
        }
    }

    /// Resumes each caller of `batch` with its outcome, or all with the transaction's error.
    private func resume(_ batch: [Pending], with written: Result<[Result<AppendResult, any Error>], any Error>) {
        switch written {
        case .failure(let error):
            for item in batch { item.continuation.resume(throwing: error) }
        case .success(let outcomes):
            for (item, outcome) in zip(batch, outcomes) {
                item.continuation.resume(with: outcome)
            }
        }
    }

    /// Writes `requests` in one LMDB write transaction: each one's outcome, or the error that
    /// failed the whole transaction (then nothing of it was written).
    private func write(
        _ requests: some RandomAccessCollection<AppendRequest>, injector: (@Sendable ([SessionID]) -> (any Error)?)?
    ) -> Result<[Result<AppendResult, any Error>], any Error> {
        var outcomes: [Result<AppendResult, any Error>] = []
        outcomes.reserveCapacity(requests.count)
        var appended: [TransitionRecord] = []
        do {
            try store.write { transaction in
                // The closure may run again after the map grows: start from scratch each time.
                outcomes.removeAll(keepingCapacity: true)
                appended.removeAll(keepingCapacity: true)
                // Asked inside the transaction: a projection registered after this point catches
                // up (in its own write transaction, so after this one) over these records.
                let collectsRecords = wantsRecords()
                if let error = injector?(requests.map(\.session)) { throw error }
                for request in requests {
                    do {
                        let result =
                            try request.baseVersion.map { base in
                                try transaction.append(request.transitions, toNewSession: request.session, base: base)
                            }
                            ?? transaction.append(
                                request.transitions, to: request.session, expectedVersion: request.expectedVersion)
                        for write in request.auxiliaryWrites {
                            try transaction.put(write.value, forKey: write.key, in: write.database)
                        }
                        for (offset, transition) in request.transitions.enumerated() where collectsRecords {
                            appended.append(
                                TransitionRecord(
                                    sequence: result.firstSequence + UInt64(offset), session: request.session,
                                    version: result.firstVersion + UInt64(offset), transition: transition))
                        }
                        outcomes.append(.success(result))
                    } catch let error as StoreError {
                        // Rejected before anything of this request was written; the others go on.
                        outcomes.append(.failure(error))
                    }
                }
                if !appended.isEmpty { try beforeCommit(transaction, appended) }
            }
        } catch {
            return .failure(error)
        }
        let acknowledged = outcomes.reduce(0) { count, outcome in
            if case .success = outcome { return count + 1 } else { return count }
        }
        lock.withLock {
            statistics.commits += 1
            statistics.appends += UInt64(acknowledged)
            statistics.largestBatch = max(statistics.largestBatch, acknowledged)
        }
        let last = outcomes.reduce(UInt64(0)) { last, outcome in
            if case .success(let result) = outcome { return max(last, result.lastSequence) } else { return last }
        }
        if last > 0 { didCommit(last) }
        return .success(outcomes)
    }
}
