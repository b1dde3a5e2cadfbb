import Foundation
import Synchronization

/// Wakes subscribers when the engine's commits move the log's head past what they have read.
///
/// Other writers of the store (another process, another engine) do not call ``advance(to:)``:
/// while anyone waits, the notifier reads the store's head every `polling.interval` and advances to
/// it, so their commits reach subscribers within that interval. One poll for all waiters; none
/// while nobody waits.
final class HeadNotifier: Sendable {
    private struct Waiter {
        var id: UInt64
        var after: UInt64
        /// Also woken by an erasure numbered past this (``noteErasure()``); `nil`: commits only.
        var erasuresAfter: UInt64?
        var continuation: CheckedContinuation<Bool, Never>
    }

    /// Everything that changes, inside the one lock (the waiters' continuations are resumed
    /// outside it).
    private struct State {
        var head: UInt64
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var isClosed = false
        /// How many erasures this engine committed (``noteErasure()``).
        var erasures: UInt64 = 0
        /// The polling task while one runs (it ends when nobody waits).
        var poller: Task<Void, Never>?
    }

    private let state: Mutex<State>
    /// How to follow other writers' commits.
    struct Polling: Sendable {
        /// How often, while anyone waits.
        var interval: Duration
        /// Reads the store's head.
        var readHead: @Sendable () throws -> UInt64
    }

    /// `nil`: only ``advance(to:)`` moves the head.
    private let polling: Polling?

    /// A notifier at `head`, following other writers as `polling` says.
    init(head: UInt64, polling: Polling? = nil) {
        state = Mutex(State(head: head))
        self.polling = polling
    }

    /// Called after a commit whose last record has global sequence `sequence`.
    func advance(to sequence: UInt64) {
        let ready = state.withLock { state -> [Waiter] in
            guard sequence > state.head else { return [] }
            state.head = sequence
            let ready = state.waiters.filter { $0.after < sequence }
            state.waiters.removeAll { $0.after < sequence }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// How many erasures this engine has committed: what a waiter that must also wake for the
    /// next one passes to ``wait(untilPast:orErasureAfter:)``.
    var erasureCount: UInt64 { state.withLock { $0.erasures } }

    /// Called after a commit that erased sessions (the head does not move): wakes the waiters
    /// that asked to hear of erasures (an uploader, whose notices must go).
    func noteErasure() {
        let ready = state.withLock { state -> [Waiter] in
            state.erasures += 1
            let erasures = state.erasures
            let ready = state.waiters.filter { $0.erasuresAfter.map { $0 < erasures } ?? false }
            state.waiters.removeAll { $0.erasuresAfter.map { $0 < erasures } ?? false }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// Tests: whether a polling task runs (never without `polling`).
    var isPolling: Bool { state.withLock { $0.poller != nil } }

    /// Tests: how many subscribers wait for a commit.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Whether ``close()`` was called (the engine closed).
    var closed: Bool { state.withLock { $0.isClosed } }

    /// Wakes every waiter for good (the engine closed).
    func close() {
        let (all, poller) = state.withLock { state -> ([Waiter], Task<Void, Never>?) in
            state.isClosed = true
            defer {
                state.waiters.removeAll()
                state.poller = nil
            }
            return (state.waiters, state.poller)
        }
        poller?.cancel()
        for waiter in all { waiter.continuation.resume(returning: false) }
    }

    /// Starts the polling task unless one runs (called inside `state`'s lock, when a waiter is added).
    private func startPollingIfNeeded(_ state: inout State) {
        guard let polling, state.poller == nil, !state.isClosed else { return }
        state.poller = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: polling.interval)
                guard let self, !Task.isCancelled else { return }
                let waiting = self.state.withLock { state -> Bool in
                    if state.waiters.isEmpty || state.isClosed {
                        state.poller = nil
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
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer = state.withLock { state -> Bool? in
                    if state.isClosed || Task.isCancelled { return false }
                    if state.head > sequence { return true }
                    if let erasuresAfter, state.erasures > erasuresAfter { return true }
                    state.waiters.append(
                        Waiter(id: id, after: sequence, erasuresAfter: erasuresAfter, continuation: continuation))
                    startPollingIfNeeded(&state)
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
    }
}
