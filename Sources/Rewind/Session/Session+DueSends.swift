import Foundation
import RewindMachine
import RewindStore

/// A session's pending sends (SCXML `<send>`): when the next is due, and delivering those
/// that are due, each as its own recorded step.
extension Session {
    /// When the session's next delayed send (SCXML `<send delay>`) is due, or `nil` when none is
    /// pending: schedule a timer for it and call ``deliverDueSends()``. A send due past the last
    /// representable timestamp (a delay of thousands of centuries) reports that timestamp.
    public var nextDueSend: Timestamp? {
        guarded.withLock { guarded in
            guarded.current.state.pendingSends.first.map { Timestamp(machineTime: $0.due) }
        }
    }

    /// Delivers every pending send (SCXML `<send>`) that is due now, in due order, each as its own
    /// step recorded under ``StepRecording/dueEvent`` (the machine processes the send's event),
    /// durably, with its hooks; returns the steps.
    ///
    /// Sends without a delay need no call: they are delivered with the step that made them, in
    /// its append (its caller gets its own step). Call this when a delayed one comes due (see
    /// ``nextDueSend``), or after resuming a session whose sends came due while it was closed;
    /// the session's next request also delivers what has come due, after its own step (errors
    /// then go to ``deferredErrors``), as the in-memory `Interpreter` does.
    ///
    /// - Throws: `MachineError.eventLoopLimitExceeded` when deliveries keep making sends due for
    ///   more steps than the machine's microstep limit (those before stay committed), and what a
    ///   step's append throws (that delivery is not written; the send stays pending).
    @discardableResult
    public func deliverDueSends() async throws -> [Step] {
        guarded.withLock { $0.deliveries += 1 }
        defer { guarded.withLock { $0.deliveries -= 1 } }
        var delivered: [Step] = []
        // Each round delivers what is due in one append; hooks may queue requests that make more due.
        while let steps = try await withGateThenQueued({ try await runDueStep() }) {
            delivered += steps
            if delivered.count >= machine.options.microstepLimit, hasDueSend {
                throw MachineError.eventLoopLimitExceeded(
                    limit: machine.options.microstepLimit, event: steps.last?.event?.name,
                    configuration: configuration)
            }
        }
        return delivered
    }

    /// Whether a pending send is due now.
    var hasDueSend: Bool {
        guarded.withLock { dueSend(in: $0.current.state) != nil }
    }

    /// The pending send of `state` that is due by the engine's clock (the first: they are kept in
    /// due order), if any. Always inlined: every step of every session asks, and the answer is
    /// almost always that nothing is pending (called, it copied the state to ask; callgrind,
    /// Benchmarks/HISTORY.md 2026-12-01).
    @inline(__always)
    func dueSend(in state: MachineState) -> ScheduledEvent? {
        guard let first = state.pendingSends.first,
            first.due <= engine.configuration.clock().machineTime
        else { return nil }
        return first
    }

    /// Delivers the pending sends that are due, holding the gate; `nil` when none is.
    func runDueStep() async throws -> [Step]? {
        guard let due = guarded.withLock({ dueSend(in: $0.current.state) }) else { return nil }
        return try await runStep(.deliverDue(due.event))
    }

    /// Evaluates on `latest` the pending sends that are due now, each as its own step and record
    /// (see ``deliverDueSends()``), after the step that made them: in a bulk send, between the
    /// events, as consecutive `send` calls would.
    func evaluateDueSends(
        advancing latest: inout SessionSnapshot, steps: inout [Step],
        transitions: inout [TransitionDraft], snapshots: inout [AppendRequest.AuxiliaryWrite]
    ) throws {
        var delivered = 0
        while let due = dueSend(in: latest.state) {
            if delivered == machine.options.microstepLimit {
                throw MachineError.eventLoopLimitExceeded(
                    limit: machine.options.microstepLimit, event: due.event.name,
                    configuration: latest.state.configuration)
            }
            try evaluate(
                .deliverDue(due.event), advancing: &latest, steps: &steps, transitions: &transitions,
                snapshots: &snapshots)
            delivered += 1
        }
    }
}
