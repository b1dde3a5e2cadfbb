import Foundation

/// Wakes subscribers when the engine's commits move the log's head past what they have read.
final class HeadNotifier: @unchecked Sendable {
    private struct Waiter {
        var id: UInt64
        var after: UInt64
        var continuation: CheckedContinuation<Bool, Never>
    }

    /// Guards every property below.
    private let lock = NSLock()
    private var head: UInt64
    private var waiters: [Waiter] = []
    private var nextID: UInt64 = 0
    private var isClosed = false

    init(head: UInt64) {
        self.head = head
    }

    /// Called after a commit whose last record has global sequence `sequence`.
    func advance(to sequence: UInt64) {
        let ready = lock.withLock { () -> [Waiter] in
            guard sequence > head else { return [] }
            head = sequence
            let ready = waiters.filter { $0.after < sequence }
            waiters.removeAll { $0.after < sequence }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// Whether ``close()`` was called (the engine closed).
    var closed: Bool { lock.withLock { isClosed } }

    /// Wakes every waiter for good (the engine closed).
    func close() {
        let all = lock.withLock { () -> [Waiter] in
            isClosed = true
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in all { waiter.continuation.resume(returning: false) }
    }

    /// Suspends until the head is past `sequence`. Returns `false` when the engine closed or the
    /// task was cancelled, `true` otherwise.
    func wait(untilPast sequence: UInt64) async -> Bool {
        let id = lock.withLock { () -> UInt64 in
            nextID += 1
            return nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer = lock.withLock { () -> Bool? in
                    if isClosed || Task.isCancelled { return false }
                    if head > sequence { return true }
                    waiters.append(Waiter(id: id, after: sequence, continuation: continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = lock.withLock { () -> Waiter? in
                guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
    }
}
