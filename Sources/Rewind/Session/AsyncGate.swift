import Foundation

/// A first-in, first-out async mutex: one holder at a time, waiters suspended (never blocking a
/// thread) and resumed in arrival order. A session holds it for the whole of a step (evaluate,
/// append, adopt, hooks), so one session's steps never interleave.
final class AsyncGate: @unchecked Sendable {
    /// Guards `held` and `waiters`.
    private let lock = NSLock()
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Waits until the gate is free and takes it.
    func acquire() async {
        // A free gate is taken without suspending (the usual case: one request at a time).
        if lock.withLock({ () -> Bool in
            if held { return false }
            held = true
            return true
        }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let takenNow = lock.withLock { () -> Bool in
                if held {
                    waiters.append(continuation)
                    return false
                }
                held = true
                return true
            }
            if takenNow { continuation.resume() }
        }
    }

    /// Hands the gate to the next waiter, or frees it.
    func release() {
        let next = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            if waiters.isEmpty {
                held = false
                return nil
            }
            return waiters.removeFirst()
        }
        next?.resume()
    }

    /// Whether someone holds the gate now (a hint: it may change right after).
    var isHeld: Bool { lock.withLock { held } }

    /// Runs `body` holding the gate.
    func withGate<R>(_ body: () async throws -> R) async rethrows -> R {
        await acquire()
        defer { release() }
        return try await body()
    }
}
