import Foundation
import Synchronization

/// Wakes subscribers when the engine's commits move the log's head past what they have read.
///
/// Other writers of the store (another process, another engine) do not call ``advance(to:)``:
/// while anyone waits, the notifier reads the store's head every `polling.interval` and advances to
/// it, so their commits reach subscribers within that interval. One poll for all waiters; none
/// while nobody waits.
///
/// `@unchecked Sendable`: `lock` guards every mutable property (the waiters' continuations are
/// resumed outside it).
final class HeadNotifier: @unchecked Sendable {
    private struct Waiter {
        var id: UInt64
        var after: UInt64
        /// Also woken by an erasure numbered past this (``noteErasure()``); `nil`: commits only.
        var erasuresAfter: UInt64?
        var continuation: CheckedContinuation<Bool, Never>
    }

    /// Guards every property below.
    private let lock = Mutex(())
    private var head: UInt64
    private var waiters: [Waiter] = []
    private var nextID: UInt64 = 0
    private var isClosed = false
    /// How many erasures this engine committed (``noteErasure()``).
    private var erasures: UInt64 = 0
    /// How to follow other writers' commits.
    struct Polling: Sendable {
        /// How often, while anyone waits.
        var interval: Duration
        /// Reads the store's head.
        var readHead: @Sendable () throws -> UInt64
    }

    /// `nil`: only ``advance(to:)`` moves the head.
    private let polling: Polling?
    /// The polling task while one runs (it ends when nobody waits).
    private var poller: Task<Void, Never>?

    /// A notifier at `head`, following other writers as `polling` says.
    init(head: UInt64, polling: Polling? = nil) {
        self.head = head
        self.polling = polling
    }

    /// Called after a commit whose last record has global sequence `sequence`.
    func advance(to sequence: UInt64) {
        let ready = lock.withLock { _ -> [Waiter] in
            guard sequence > head else { return [] }
            head = sequence
            let ready = waiters.filter { $0.after < sequence }
            waiters.removeAll { $0.after < sequence }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// How many erasures this engine has committed: what a waiter that must also wake for the
    /// next one passes to ``wait(untilPast:orErasureAfter:)``.
    var erasureCount: UInt64 { lock.withLock { _ in erasures } }

    /// Called after a commit that erased sessions (the head does not move): wakes the waiters
    /// that asked to hear of erasures (an uploader, whose notices must go).
    func noteErasure() {
        let ready = lock.withLock { _ -> [Waiter] in
            erasures += 1
            let ready = waiters.filter { $0.erasuresAfter.map { $0 < erasures } ?? false }
            waiters.removeAll { $0.erasuresAfter.map { $0 < erasures } ?? false }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// Tests: whether a polling task runs (never without `polling`).
    var isPolling: Bool { lock.withLock { _ in poller != nil } }

    /// Tests: how many subscribers wait for a commit.
    var waitingCount: Int { lock.withLock { _ in waiters.count } }

    /// Whether ``close()`` was called (the engine closed).
    var closed: Bool { lock.withLock { _ in isClosed } }

    /// Wakes every waiter for good (the engine closed).
    func close() {
        let (all, poller) = lock.withLock { _ -> ([Waiter], Task<Void, Never>?) in
            isClosed = true
            defer {
                waiters.removeAll()
                self.poller = nil
            }
            return (waiters, self.poller)
        }
        poller?.cancel()
        for waiter in all { waiter.continuation.resume(returning: false) }
    }

    /// Starts the polling task unless one runs (called with `lock` held, when a waiter is added).
    private func startPollingIfNeeded() {
        guard let polling, poller == nil, !isClosed else { return }
        poller = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: polling.interval)
                guard let self, !Task.isCancelled else { return }
                let waiting = self.lock.withLock { _ -> Bool in
                    if self.waiters.isEmpty || self.isClosed {
                        self.poller = nil
                        return false
                    }
                    return true
                }
                guard waiting else { return }
                // A store that fails to read (closing under us) is simply not polled this time.
                if let head = try? polling.readHead() { self.advance(to: head) }
            }
        }
    }

    /// Suspends until the head is past `sequence` (or, with `erasuresAfter`, until an erasure is
    /// numbered past it, see ``erasureCount``). Returns `false` when the engine closed or the task
    /// was cancelled, `true` otherwise.
    func wait(untilPast sequence: UInt64, orErasureAfter erasuresAfter: UInt64? = nil) async -> Bool {
        let id = lock.withLock { _ -> UInt64 in
            nextID += 1
            return nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer = lock.withLock { _ -> Bool? in
                    if isClosed || Task.isCancelled { return false }
                    if head > sequence { return true }
                    if let erasuresAfter, erasures > erasuresAfter { return true }
                    waiters.append(Waiter(id: id, after: sequence, erasuresAfter: erasuresAfter, continuation: continuation))
                    startPollingIfNeeded()
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = lock.withLock { _ -> Waiter? in
                guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
    }
}
