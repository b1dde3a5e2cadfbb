import Hummingbird
import Synchronization

/// How many requests one API key may have in progress at once, so that no key can take every
/// connection to PostgreSQL from the others (issue 32, "No request can hurt the others"): a
/// request of a key at its limit waits, first come first served, for one of the key's requests to
/// end, at most ``wait``; then it is refused with a 429 and `Retry-After` (RewindSync's uploader
/// retries it). Requests of other keys never wait on it. The limit is the caller's: read and
/// erase keys have ``ServerConfiguration/requestsPerKey``, ingest keys (one per app, shared by its
/// devices) ``ServerConfiguration/requestsPerIngestKey``.
///
/// A request takes its key's slot once authenticated (``Routes/admit(_:)``), and gives it back
/// when its handler returns or throws (``KeyConcurrencyMiddleware``), or, for an answer streamed
/// after its handler returned, when the stream ends (``KeyTurn``). The wait holds no database
/// connection: only requests in progress do.
final class KeyConcurrency: Sendable {
    /// How long a request waits for a slot before it is refused.
    let wait: Duration

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct Slots {
        var inProgress = 0
        var waiters: [Waiter] = []
    }

    private struct State {
        var keys: [String: Slots] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The slot the request being handled holds (set by ``KeyConcurrencyMiddleware`` around the
    /// handler, filled by ``Routes/admit(_:)``).
    @TaskLocal static var held: HeldSlot?

    /// Requests that wait at most `wait` for their key's turn.
    init(wait: Duration) {
        self.wait = wait
    }

    /// Takes a slot of `key`, of which at most `limit` (at least one) are taken at once, waiting
    /// for one at most ``wait``; returns whether it got one.
    func acquire(_ key: String, limit: Int) async -> Bool {
        let limit = max(1, limit)
        let queued: UInt64? = state.withLock { state in
            if state.keys[key, default: Slots()].inProgress < limit {
                state.keys[key, default: Slots()].inProgress += 1
                return nil
            }
            state.nextWaiter += 1
            return state.nextWaiter
        }
        guard let id = queued else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer = state.withLock { state -> Bool? in
                    // A slot freed since the first look.
                    if state.keys[key, default: Slots()].inProgress < limit {
                        state.keys[key, default: Slots()].inProgress += 1
                        return true
                    }
                    // Cancelled before its wait was queued: `onCancel` found no waiter to end (a task
                    // is marked cancelled before its handler runs, and the handler takes this lock).
                    if Task.isCancelled { return false }
                    state.keys[key, default: Slots()].waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let answer {
                    continuation.resume(returning: answer)
                } else {
                    let wait = self.wait
                    Task {
                        try? await Task.sleep(for: wait)
                        self.giveUp(key, waiter: id)
                    }
                }
            }
        } onCancel: {
            giveUp(key, waiter: id)
        }
    }

    /// Gives back a slot of `key`: to its first waiter, if any.
    func release(_ key: String) {
        let next: Waiter? = state.withLock { state in
            guard var slots = state.keys[key] else { return nil }
            defer {
                if slots.inProgress == 0 && slots.waiters.isEmpty {
                    state.keys[key] = nil
                } else {
                    state.keys[key] = slots
                }
            }
            if !slots.waiters.isEmpty { return slots.waiters.removeFirst() }
            slots.inProgress -= 1
            return nil
        }
        next?.continuation.resume(returning: true)
    }

    /// Ends the wait of `waiter` for a slot of `key` without one, unless it was given one already.
    private func giveUp(_ key: String, waiter id: UInt64) {
        let waiter: Waiter? = state.withLock { state in
            guard let index = state.keys[key]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.keys[key]?.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: false)
    }
}

/// The key whose slot a request holds, if any.
final class HeldSlot: Sendable {
    private let concurrency: KeyConcurrency
    private let key = Mutex<String?>(nil)

    /// A request's slot of `concurrency`, none held yet.
    init(_ concurrency: KeyConcurrency) {
        self.concurrency = concurrency
    }

    /// Records that the request holds a slot of `key`; `false` when it holds one already.
    func hold(_ key: String) -> Bool {
        self.key.withLock { held in
            guard held == nil else { return false }
            held = key
            return true
        }
    }

    /// The key held, taken back (`nil` when none).
    func take() -> String? {
        key.withLock { held in
            defer { held = nil }
            return held
        }
    }

    /// Hands the slot held to a response body that is written after the handler returns (a
    /// stream): the handler's end then keeps it, and the body gives it back (``KeyTurn``). `nil`
    /// when no slot is held.
    func handOver() -> KeyTurn? {
        take().map { KeyTurn(key: $0, of: concurrency) }
    }
}

/// A key's slot held by a response body after its handler returned (``HeldSlot/handOver()``):
/// given back when the body ends (``end()``), or at the latest when the response is dropped
/// without its body written (a client gone before the head was sent).
final class KeyTurn: Sendable {
    private let concurrency: KeyConcurrency
    private let key: Mutex<String?>

    init(key: String, of concurrency: KeyConcurrency) {
        self.concurrency = concurrency
        self.key = Mutex(key)
    }

    /// Gives the slot back (once).
    func end() {
        if let key = key.withLock({ key -> String? in
            defer { key = nil }
            return key
        }) {
            concurrency.release(key)
        }
    }

    deinit { end() }
}

/// Gives a request's key slot back when its handler ends (see ``KeyConcurrency``).
struct KeyConcurrencyMiddleware<Context: RequestContext>: RouterMiddleware {
    let concurrency: KeyConcurrency

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let slot = HeldSlot(concurrency)
        defer { if let key = slot.take() { concurrency.release(key) } }
        return try await KeyConcurrency.$held.withValue(slot) { try await next(request, context) }
    }
}
