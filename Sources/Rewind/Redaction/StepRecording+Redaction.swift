import RewindMachine
import RewindStore

/// Replaying records whose values were redacted (``TransitionRecord/redacted``).
///
/// When a session writes a redacted record it checks, from the values as recorded, whether a
/// replay of it would reach exactly what it records (``replaysAsRecorded(_:request:from:to:at:)``):
/// the same target and navigation, the recorded state and entered data. When it would not (a
/// guard or an action read a redacted value), the session writes the recorded state as a snapshot
/// at the record's version, in the same append, and every replay (resume, the cursor, the player,
/// `rewind check`, an import's snapshots) takes that state after the record instead of re-running
/// it blindly. So a redacted session resumes in the state it recorded, and no replay reports a
/// divergence where there was only redaction.
extension StepRecording {
    /// The snapshot written with `record` (see the extension's overview): at its version, of its
    /// target configuration, when the record is redacted and `reader` keeps one; `nil` otherwise.
    static func snapshot(writtenWith record: TransitionRecord, in reader: any TransitionLogReader) throws
        -> SessionSnapshot?
    {
        guard record.redacted,
            let snapshot = try reader.latestSnapshot(of: record.session, atOrBefore: record.version),
            snapshot.version == record.version, snapshot.state.configuration == record.target
        else { return nil }
        return snapshot
    }

    /// `record` (its request `request`) re-run on `snapshot`, as ``replay(_:request:on:)`` does,
    /// except for a redacted record written with a snapshot of its own in `reader`: then the
    /// state after it is that snapshot, and the step the machine's when it reaches the recorded
    /// target from the recorded values (a player runs its hooks), else a step without microsteps.
    ///
    /// - Throws: what ``replay(_:request:on:)`` throws, for a redacted record without its
    ///   snapshot ``EngineError/redactedRecordNotReproduced(session:version:event:recorded:computed:)``.
    func replay(
        _ record: TransitionRecord, request: Request, on snapshot: SessionSnapshot, in reader: any TransitionLogReader
    ) throws -> (Step, SessionSnapshot) {
        var next = snapshot
        let step = try replay(record, request: request, advancing: &next, in: reader)
        return (step, next)
    }

    /// ``replay(_:request:on:in:)`` in place, as ``replay(_:request:advancing:)`` is: `snapshot`
    /// moves to the state after `record` (on error it may be half-changed: the caller drops it).
    func replay(
        _ record: TransitionRecord, request: Request, advancing snapshot: inout SessionSnapshot,
        in reader: any TransitionLogReader
    ) throws -> Step {
        guard record.redacted, let recorded = try Self.snapshot(writtenWith: record, in: reader) else {
            return try replay(record, request: request, advancing: &snapshot)
        }
        var step =
            (try? evaluate(request, in: snapshot.state, at: record.timestamp)).flatMap {
                $0.target == record.target ? $0 : nil
            } ?? Step(event: nil, source: record.source, target: record.target, microsteps: [], state: recorded.state)
        step.state = recorded.state
        snapshot = recorded
        return step
    }

    /// Whether a replay of `step`'s record, made by `request` at `time`, from `before` (the state
    /// before it as recorded) reaches exactly what the session records after it: the same target
    /// and navigation, the state `after` (the step's, redacted) and the entered data as recorded.
    /// Exactly, not up to redaction, so that every replay state is the recorded one and the next
    /// record's check starts where a replay does. `true` without a redactor.
    func replaysAsRecorded(
        _ step: Step, request: Request, from before: SessionSnapshot, to after: MachineState, at time: Timestamp
    ) -> Bool {
        guard let redactor else { return true }
        var ignored = false
        let recordedRequest = redactor.redact(request, changed: &ignored)
        guard let replayed = try? evaluate(recordedRequest, in: before.state, at: time),
            replayed.target == step.target, replayed.navigation == step.navigation, replayed.state == after
        else { return false }
        return Self.enteredData(of: replayed.microsteps)
            == redactor.redact(data: Self.enteredData(of: step.microsteps), changed: &ignored)
    }
}
