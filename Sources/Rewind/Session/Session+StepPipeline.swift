import Foundation
import RewindMachine
import RewindStore

/// A session's step pipeline, holding the gate: evaluate every request (purely) → append
/// the records in one group commit → adopt the new state → run the hooks.
extension Session {
    /// Evaluate → append → adopt → hooks, holding the gate: `request`, then the sends due after
    /// it (SCXML `<send>` without a delay) in the same append. Returns the steps, the request's
    /// first.
    func runStep(_ request: StepRecording.Request) async throws -> [Step] {
        try await runPipeline(capacity: 1) { latest, steps, transitions, writes in
            try evaluate(request, advancing: &latest, steps: &steps, transitions: &transitions, snapshots: &writes)
            try evaluateDueSends(advancing: &latest, steps: &steps, transitions: &transitions, snapshots: &writes)
        }
    }

    /// Evaluate every event → one append → adopt → every step's hooks, holding the gate (see
    /// `send(contentsOf:)`; `runStep` is the one-request case). Returns the events' own steps.
    func runSteps(sending events: [Event]) async throws -> [Step] {
        // Where each event's own step is among the steps (the deliveries of due sends go between).
        var requested: [Int] = []
        requested.reserveCapacity(events.count)
        let steps = try await runPipeline(capacity: events.count) { latest, steps, transitions, writes in
            // Each event wrapped in its request here, one at a time: the one copy of an event a
            // record needs. An array of requests made first was copied again element by element
            // (copied out to be borrowed, through the enum's value witnesses, and destroyed after:
            // about 250 instructions a bulk record; callgrind, Benchmarks/HISTORY.md 2026-12-01).
            for event in events {
                try evaluate(
                    .send(event), advancing: &latest, steps: &steps, transitions: &transitions, snapshots: &writes)
                requested.append(steps.count - 1)
                try evaluateDueSends(advancing: &latest, steps: &steps, transitions: &transitions, snapshots: &writes)
            }
        }
        return requested.count == steps.count ? steps : requested.map { steps[$0] }
    }

    /// The pipeline of ``runStep(_:)`` and ``runSteps(sending:)``: `evaluateRequests` evaluates (purely)
    /// from the session's state, after the record of a pending migration, adding the steps, their
    /// transitions and snapshot writes; then one append, adopt, hooks. Returns every step
    /// evaluated, due sends' deliveries included.
    private func runPipeline(
        capacity: Int,
        _ evaluateRequests: (
            _ latest: inout SessionSnapshot, _ steps: inout [Step], _ transitions: inout [TransitionDraft],
            _ writes: inout [AppendRequest.AuxiliaryWrite]
        ) throws -> Void
    ) async throws -> [Step] {
        try engine.ensureOpen()
        // One copy of the session's snapshot, moved on in place and swapped in at the end; of the
        // state before, only its version and machine state are kept. A second and a third copy
        // (the snapshot before, and the assignment back) and their destruction were about 1,000
        // instructions of a single send (callgrind, Benchmarks/HISTORY.md 2026-12-01).
        var (latest, migrates) = guarded.withLock { ($0.current, $0.migration != nil) }
        let beforeVersion = latest.version
        let beforeState = latest.state
        var steps: [Step] = []
        steps.reserveCapacity(capacity)
        var transitions: [TransitionDraft] = []
        transitions.reserveCapacity(capacity)
        var writes: [AppendRequest.AuxiliaryWrite] = []
        // The pending migration read only when there is one (the gate is held: it cannot change
        // meanwhile). Read every time, its `nil` was destroyed through the type's metadata on
        // every send, three times (~190 instructions; callgrind, Benchmarks/HISTORY.md 2026-12-01).
        if migrates, let migration = guarded.withLock({ $0.migration }) {
            try prepend(migration, advancing: &latest, transitions: &transitions, snapshots: &writes)
        }
        try evaluateRequests(&latest, &steps, &transitions, &writes)
        // No transition: an explicitly ignored event; nothing happened, nothing is recorded (not
        // even a pending migration: it goes with the first record under the new definition).
        if transitions.count == (migrates ? 1 : 0) { return steps }
        try await append(transitions, afterVersion: beforeVersion, writes: writes)
        let hooksRunOnMainActor = guarded.withLock { guarded in
            swap(&guarded.current, &latest)
            guarded.migration = nil
            return guarded.hooksRunOnMainActor
        }
        if let onMainActor = hooksRunOnMainActor {
            await runHooks(of: steps, from: beforeState, onMainActor: onMainActor)
        }
        return steps
    }
}
