import Foundation

/// The ceiling of any engine with an `async` send on this machine: raw LMDB commits (no state
/// machine, no record encoding, no session bookkeeping) fed by concurrent Swift tasks that each
/// suspend until the commit holding their value returns, as the engine's senders do.
///
/// A dedicated thread writes one value per waiting sender in one write transaction (see
/// ``RawLMDBLog/append(batch:)``), commits, and resumes them. Durable, it first waits until every
/// sender still running is waiting (the engine's gathering at its best: one commit per round);
/// with `MDB_NOSYNC` it commits whatever is waiting as soon as the previous commit returned (the
/// engine's no-sync path). A round therefore costs a raw commit of the batch plus what Swift's
/// concurrency charges to suspend and resume the senders: the part of a round no engine work
/// is in.
final class TaskFedRawLog: @unchecked Sendable {
    // Concurrency: `pending`, `senders`, `isStopped` and `commits` are guarded by `condition`;
    // `log` is used by the commit thread only (and closed after it stopped).
    private let log: RawLMDBLog
    private let condition = NSCondition()
    private var pending: [CheckedContinuation<Void, any Error>] = []
    private var senders = 0
    private var isStopped = false
    private let stopped = DispatchSemaphore(value: 0)
    private var commits = 0

    /// Whether the commit thread waits for every running sender before it commits.
    private let gathersAll: Bool

    /// `writeMap` and `reservedMap`: the log opened as ``RawLMDBLog`` says (the store's own
    /// environment: a writable map reserved on disk).
    init(recordSize: Int, noSync: Bool = false, writeMap: Bool = false, reservedMap: Int? = nil) throws {
        log = try RawLMDBLog(recordSize: recordSize, noSync: noSync, writeMap: writeMap, reservedMap: reservedMap)
        gathersAll = !noSync
        // The thread holds the log until `close()` stops it.
        let thread = Thread { self.commitLoop() }
        thread.name = "raw-commit"
        thread.start()
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
            condition.withLock {
                pending.append(continuation)
                if !gathersAll || pending.count >= senders { condition.signal() }
            }
        }
    }

    private func senderDidFinish() {
        condition.withLock {
            senders -= 1
            if !pending.isEmpty && pending.count >= senders { condition.signal() }
        }
    }

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
            do {
                try log.append(batch: batch.count)
                condition.withLock { commits += 1 }
                for continuation in batch { continuation.resume() }
            } catch {
                for continuation in batch { continuation.resume(throwing: error) }
            }
        }
        stopped.signal()
    }

    /// Stops the commit thread and removes the log.
    func close() {
        condition.withLock {
            isStopped = true
            condition.signal()
        }
        stopped.wait()
        log.close()
    }
}
