import Foundation
import RewindMachine
import RewindStore

/// A session's requests run one at a time: the gate each request holds, and the queue of
/// requests made meanwhile (`setNeedsTransition`, from hooks or other tasks), run after it.
extension Session {
    /// Queues an event to be sent after the current step (StateViewController's
    /// `setNeedsTransition`). Called from a hook, it runs once the hooks of the current step are
    /// done, before the request that ran them returns; called outside any step, it runs on a new
    /// task (while another task's request holds the session: after that request, succeeded or
    /// failed, on its task). Errors go to ``deferredErrors``.
    public func setNeedsTransition(_ event: String, payload: JSONValue = .null) {
        enqueue(.send(Event(event, payload: payload)))
    }

    /// Queues a direct move to run after the current step (see `setNeedsTransition(_:payload:)`).
    public func setNeedsTransition(to state: String, data: JSONValue = .null) {
        enqueue(.enter(state: state, data: data))
    }

    /// Runs `request` and then whatever its hooks queued. Always inlined into its callers (one
    /// async frame fewer a send).
    @inline(__always)
    func perform(_ request: StepRecording.Request) async throws -> Step {
        // The request's step (the first) moved out of the array, not copied out of it; by
        // `removeLast` when it is the only one (`removeFirst` goes through the generic
        // `replaceSubrange`).
        var steps = try await withGateThenQueued { try await runStep(request) }
        return steps.count == 1 ? steps.removeLast() : steps.removeFirst()
    }

    /// Runs `body` holding the gate, then the requests queued meanwhile, also when `body` throws:
    /// a request queued from outside any step while the gate was held is left to the holder (see
    /// `enqueue`), and would otherwise wait for the session's next request. A failed `body` with
    /// nothing queued is followed by nothing (no due send is delivered).
    @inline(__always)
    func withGateThenQueued<R>(_ body: () async throws -> R) async throws -> R {
        do {
            let result = try await gate.withGate(body)
            // Checked here first: usually nothing is queued or due, and `drainQueued` is
            // not entered (an async call: a frame of the task's allocator).
            if hasQueuedWork { await drainQueued() }
            return result
        } catch {
            if guarded.withLock({ !$0.queued.isEmpty }) { await drainQueued() }
            throw error
        }
    }

    func enqueue(_ request: StepRecording.Request) {
        guarded.withLock { $0.queued.append(request) }
        if !gate.isHeld {
            Task { await self.drainQueued() }
        }
    }

    /// Runs the queued requests, one step each, recording their errors; then delivers the
    /// pending sends that have come due since (unless a delivery loop runs already), recording its
    /// error.
    ///
    /// Each request is taken from the queue holding the gate: several tasks may drain at once
    /// (each request queued outside any step starts one), and one that took a request before
    /// waiting for the gate could be overtaken by another with a later one.
    /// Whether ``drainQueued()`` has anything to do now: a queued request, or a pending send
    /// that has come due while no delivery loop runs.
    private var hasQueuedWork: Bool {
        guarded.withLock { guarded in
            // Pending sends asked first: a `dueSend` answer, even `nil`, is destroyed through its
            // type's metadata (~70 instructions a send).
            !guarded.queued.isEmpty
                || (guarded.deliveries == 0 && !guarded.current.state.pendingSends.isEmpty
                    && dueSend(in: guarded.current.state) != nil)
        }
    }

    func drainQueued() async {
        while guarded.withLock({ !$0.queued.isEmpty }) {
            do {
                _ = try await gate.withGate { () -> [Step] in
                    guard let request = guarded.withLock({ $0.queued.isEmpty ? nil : $0.queued.removeFirst() }) else {
                        return []
                    }
                    return try await runStep(request)
                }
            } catch {
                guarded.withLock { $0.recordDeferred(error) }
            }
        }
        guard guarded.withLock({ $0.deliveries == 0 && dueSend(in: $0.current.state) != nil }) else { return }
        do {
            try await deliverDueSends()
        } catch {
            guarded.withLock { $0.recordDeferred(error) }
        }
    }
}
