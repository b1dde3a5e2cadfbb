import Foundation
import Synchronization

/// A first-in, first-out async mutex: one holder at a time, waiters suspended (never blocking a
/// thread) and resumed in arrival order. A session holds it for the whole of a step (evaluate,
/// append, adopt, hooks), so one session's steps never interleave; the uploader (RewindSync)
/// holds one for each upload pass. The package's one async FIFO gate.
package final class AsyncGate: Sendable {
    /// Whether someone holds the gate, and who waits for it, in arrival order. Each waiter's
    /// continuation is resumed exactly once, by the release that hands it the gate (or at once
    /// when the gate was freed meanwhile). `UnsafeContinuation`, not `CheckedContinuation`: the
    /// checked one's layout is opaque outside the standard library, so every release destroyed
    /// its `nil` optional through the type's metadata (callgrind, Benchmarks/HISTORY.md 2026-12-01).
    private struct State {
        var held = false
        var waiters: [UnsafeContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// A free gate.
    package init() {}

    /// Waits until the gate is free and takes it.
    package func acquire() async {
        // A free gate is taken without suspending (the usual case: one request at a time).
        if state.withLock({ state -> Bool in
            if state.held { return false }
            state.held = true
            return true
        }) {
            return
        }
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let takenNow = state.withLock { state -> Bool in
                if state.held {
                    state.waiters.append(continuation)
                    return false
                }
                state.held = true
                return true
            }
            if takenNow { continuation.resume() }
        }
    }

    /// Hands the gate to the next waiter, or frees it.
    package func release() {
        let next = state.withLock { state -> UnsafeContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }

    /// Whether someone holds the gate now (a hint: it may change right after).
    package var isHeld: Bool { state.withLock { $0.held } }

    /// Runs `body` holding the gate.
    package func withGate<R>(_ body: () async throws -> R) async rethrows -> R {
        await acquire()
        defer { release() }
        return try await body()
    }
}
