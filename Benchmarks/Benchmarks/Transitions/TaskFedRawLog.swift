import Foundation

/// The ceiling of any engine with an `async` send on this machine: raw LMDB commits (no state
/// machine, no record encoding, no session bookkeeping) fed by concurrent Swift tasks that each
/// suspend until the commit holding their value returns, as the engine's senders do.
///
/// A committer writes one value per waiting sender in one write transaction (see
/// ``RawLMDBLog/append(batch:)``), commits, and resumes them: a thread of its own waiting on a
/// condition (``Handoff/thread``, the ceilings' form), or work items on a serial `DispatchQueue`
/// started when an append finds no commit in flight (``Handoff/dispatchQueue``: the engine's own
/// handoff, `CommitQueue` on its `BlockingQueue`). Durable, it first waits until every
/// sender still running is waiting (the engine's gathering at its best: one commit per round);
/// with `MDB_NOSYNC` it commits whatever is waiting as soon as the previous commit returned (the
/// engine's no-sync path). A round therefore costs a raw commit of the batch plus what Swift's
/// concurrency charges to suspend and resume the senders: the part of a round no engine work
/// is in.
final class TaskFedRawLog: @unchecked Sendable {
    /// How the senders' values reach the committer.
    enum Handoff {
        /// A thread of its own, waiting on a condition while nothing waits.
        case thread
        /// Work items on a serial `DispatchQueue`, as the engine's commits (`BlockingQueue`).
        case dispatchQueue
    }

    // Concurrency: `pending`, `senders`, `isStopped`, `isDraining` and `commits` are guarded by
    // `condition`; `log` is used by the committer only (one work item at a time, `isDraining`),
    // and closed after it stopped.
    private let log: RawLMDBLog
    private let condition = NSCondition()
    private var pending: [CheckedContinuation<Void, any Error>] = []
    private var senders = 0
    private var isStopped = false
    private let stopped = DispatchSemaphore(value: 0)
    private var commits = 0
    /// The queue of ``Handoff/dispatchQueue`` (`nil`: a thread of its own).
    private let queue: DispatchQueue?
    private var isDraining = false

    /// Whether the committer waits for every running sender before it commits.
    private let gathersAll: Bool

    /// `writeMap` and `reservedMap`: the log opened as ``RawLMDBLog`` says (the store's own
    /// environment: a writable map reserved on disk).
    init(
        recordSize: Int, noSync: Bool = false, writeMap: Bool = false, reservedMap: Int? = nil,
        handoff: Handoff = .thread
    ) throws {
        log = try RawLMDBLog(recordSize: recordSize, noSync: noSync, writeMap: writeMap, reservedMap: reservedMap)
        gathersAll = !noSync
        switch handoff {
        case .thread:
            queue = nil
            // The thread holds the log until `close()` stops it.
            let thread = Thread { self.commitLoop() }
            thread.name = "raw-commit"
            thread.start()
        case .dispatchQueue:
            queue = DispatchQueue(label: "raw-commit")
        }
    }

    /// Runs `total` appends from `senders` concurrent tasks, each appending one value at a time
    /// and waiting for its commit. Returns the number of commits it took.
    func run(appends total: Int, senders count: Int) async throws -> Int {
        let commitsBefore = condition.withLock { commits }
        let tickets = Tickets(limit: total)
        condition.withLock { senders = count }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    defer { self.senderDidFinish() }
                    while tickets.take() { try await self.append() }
                }
            }
            try await group.waitForAll()
        }
        return condition.withLock { commits } - commitsBefore
    }

    /// One value appended by the next commit; returns once that commit returned. Outside
    /// ``run(appends:senders:)`` (no senders counted) the commit thread commits it at once: a lone
    /// sender's round trip, the hop to the commit thread and back around one raw commit.
    func append() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let startsDrain = condition.withLock { () -> Bool in
                pending.append(continuation)
                if !gathersAll || pending.count >= senders { condition.signal() }
                guard queue != nil, !isDraining else { return false }
                isDraining = true
                return true
            }
            if startsDrain { queue?.async { self.drain() } }
        }
    }

    private func senderDidFinish() {
        condition.withLock {
            senders -= 1
            if !pending.isEmpty && pending.count >= senders { condition.signal() }
        }
    }

    /// ``Handoff/thread``: commits whatever waits (once every sender waits, durable), until stopped.
    private func commitLoop() {
        while true {
            let batch = condition.withLock { () -> [CheckedContinuation<Void, any Error>]? in
                while !isStopped && (pending.isEmpty || (gathersAll && pending.count < senders)) { condition.wait() }
                if isStopped { return nil }
                let batch = pending
                pending.removeAll(keepingCapacity: true)
                return batch
            }
            guard let batch else { break }
            commit(batch)
        }
        stopped.signal()
    }

    /// ``Handoff/dispatchQueue``: one work item commits what waits (once every sender waits,
    /// durable), batch after batch, until nothing does.
    private func drain() {
        while true {
            let batch = condition.withLock { () -> [CheckedContinuation<Void, any Error>] in
                while gathersAll && !pending.isEmpty && pending.count < senders { condition.wait() }
                let batch = pending
                pending.removeAll(keepingCapacity: true)
                if batch.isEmpty { isDraining = false }
                return batch
            }
            if batch.isEmpty { return }
            commit(batch)
        }
    }

    /// Writes one value per sender of `batch` in one transaction and resumes them.
    private func commit(_ batch: [CheckedContinuation<Void, any Error>]) {
        do {
            try log.append(batch: batch.count)
            condition.withLock { commits += 1 }
            for continuation in batch { continuation.resume() }
        } catch {
            for continuation in batch { continuation.resume(throwing: error) }
        }
    }

    /// Stops the committer and removes the log.
    func close() {
        if let queue {
            // Nothing is appended any more: the work item in flight, if any, ends.
            queue.sync {}
        } else {
            condition.withLock {
                isStopped = true
                condition.signal()
            }
            stopped.wait()
        }
        log.close()
    }
}
