import Foundation
import RewindMachine
import RewindStore

/// Evaluating a request on the session's latest state, purely: its step, its record and the
/// snapshot due at its version (nothing is written here).
extension Session {
    /// Evaluates `request` on `latest` (purely: nothing is written) and appends its step to
    /// `steps`; when the step changed something (not an explicitly ignored event), also appends
    /// its transition to `transitions`, moves `latest` one version on (the step's state, its
    /// navigation applied) and adds the write of a snapshot due at that version to `snapshots`.
    /// On error `latest`, `steps` and `transitions` may be half-changed: the caller drops them.
    ///
    /// The step comes from the one evaluation entry point, `StepRecording.evaluate(_:in:at:)`
    /// with `latest.state` changed in place (the machine reads it from its table of precomputed
    /// outcomes when it can: no copy of the state, the step's arrays shared with the table).
    ///
    /// With a redaction policy for the machine the record holds the redacted values, and is
    /// flagged ``TransitionDraft/redacted`` when they or the state it starts from differ from what
    /// the session holds; a flagged record that a replay from the recorded values would not
    /// reproduce is written with the recorded state as a snapshot (see `StepRecording+Redaction`).
    func evaluate(
        _ request: StepRecording.Request, advancing latest: inout SessionSnapshot, steps: inout [Step],
        transitions: inout [TransitionDraft], snapshots: inout [AppendRequest.AuxiliaryWrite]
    ) throws {
        if try evaluateStep(
            request, advancing: &latest, steps: &steps, transitions: &transitions, snapshots: &snapshots)
        {
            // The step shows the state data an uncovered entry restored.
            steps[steps.count - 1].state = latest.state
        }
    }

    /// ``evaluate(_:advancing:steps:transitions:snapshots:)`` but for the step's state data that
    /// an uncovered entry restored: returns whether it did, for the caller to show in the step.
    ///
    /// The step and the draft are `let`s, each built once, and appended last, after every call:
    /// a step changed after it was built (or in its array, in this function), or a draft built in
    /// two branches, was copied whole on its way into the array and its own copy released at the
    /// end (its references retained and released: ~425 and ~480 instructions a record; callgrind,
    /// Benchmarks/HISTORY.md, 2026-11-29). Not inlined, so that the caller's change of the step
    /// stays after the end of this function.
    ///
    /// Without a redaction policy no copy of the state before is kept: an optional copy, `nil`
    /// without a policy, was destroyed through its type's metadata on every record (~145
    /// instructions a bulk record; callgrind, Benchmarks/HISTORY.md 2026-12-01). The two paths
    /// end alike, written out in each: a shared function taking the step and the draft copied
    /// both on their way in (+94 a record).
    @inline(never)
    private func evaluateStep(
        _ request: StepRecording.Request, advancing latest: inout SessionSnapshot, steps: inout [Step],
        transitions: inout [TransitionDraft], snapshots: inout [AppendRequest.AuxiliaryWrite]
    ) throws -> Bool {
        let time = engine.configuration.clock()
        guard let redactor = recording.redactor else {
            let step = try recording.evaluate(request, in: &latest.state, at: time)
            if step.microsteps.isEmpty && !request.isAlwaysRecorded {
                steps.append(step)
                return false
            }
            let transition = try recording.transition(for: step, request: request, at: time)
            let restored = try advance(
                &latest, navigation: transition.navigation, microsteps: step.microsteps, at: time,
                snapshots: &snapshots)
            transitions.append(transition)
            steps.append(step)
            return restored
        }
        // With a policy, the record is flagged when the state before or after differs from what
        // is recorded (or its own values were redacted), then checked to replay to exactly the
        // recorded state.
        let before = latest
        let step = try recording.evaluate(request, in: &latest.state, at: time)
        if step.microsteps.isEmpty && !request.isAlwaysRecorded {
            steps.append(step)
            return false
        }
        var differs = false
        let recordedBefore = redactor.redact(before, changed: &differs)
        let recordedAfter = redactor.redact(step.state, changed: &differs)
        let transition = try recording.transition(for: step, request: request, at: time, markingRedacted: differs)
        let writesSnapshot =
            transition.redacted
            && !recording.replaysAsRecorded(step, request: request, from: recordedBefore, to: recordedAfter, at: time)
        let restored = try advance(
            &latest, navigation: transition.navigation, microsteps: step.microsteps, at: time, snapshots: &snapshots,
            writingSnapshot: writesSnapshot)
        transitions.append(transition)
        steps.append(step)
        return restored
    }

    /// Puts the pending `rewind.migrate` record first among `transitions`, stamped now, and moves
    /// `latest` (already the migrated state) one version on, to its version.
    func prepend(
        _ migration: TransitionDraft, advancing latest: inout SessionSnapshot, transitions: inout [TransitionDraft],
        snapshots: inout [AppendRequest.AuxiliaryWrite]
    ) throws {
        var migration = migration
        migration.timestamp = engine.configuration.clock()
        transitions.append(migration)
        // The snapshot's stack is the migrated one already: the record's operations only tell log readers.
        try advance(&latest, navigation: [], microsteps: [], at: migration.timestamp, snapshots: &snapshots)
    }

    /// Moves `snapshot`, whose state is already the step's, one version on: `navigation` applied
    /// (entries with the data `microsteps` entered; an uncovered entry's data restored into the
    /// state: ``ScreenStack/apply(_:of:to:)``), stamped `time`; when a snapshot is due at that
    /// version (or `writingSnapshot`), its write is added to `snapshots`, redacted by the
    /// machine's redaction policy.
    ///
    /// - Returns: Whether the state's data changed (an uncovered entry's data restored).
    @discardableResult
    func advance(
        _ snapshot: inout SessionSnapshot, navigation: [NavigationOperation], microsteps: [Microstep],
        at time: Timestamp, snapshots: inout [AppendRequest.AuxiliaryWrite], writingSnapshot: Bool = false
    ) throws -> Bool {
        snapshot.version += 1
        if snapshot.definition != recording.definition { snapshot.definition = recording.definition }
        let restored = snapshot.navigation.apply(navigation, of: microsteps, to: &snapshot.state)
        snapshot.timestamp = time
        let interval = engine.configuration.snapshotInterval
        if writingSnapshot || (interval > 0 && snapshot.version % interval == 0) {
            var ignored = false
            let stored = recording.redactor.map { $0.redact(snapshot, changed: &ignored) } ?? snapshot
            snapshots.append(
                AppendRequest.AuxiliaryWrite(
                    database: .snapshots, key: SessionSnapshot.key(session: id, version: snapshot.version),
                    value: try stored.encoded()))
        }
        return restored
    }
}
