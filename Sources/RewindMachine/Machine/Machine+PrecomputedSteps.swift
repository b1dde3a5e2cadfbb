/// The general `send` on the table of prepared outcomes: when the event's outcome in the active
/// configuration is precomputed, the ``Step`` is assembled from the table's shared arrays instead
/// of running the algorithm (the same step, without its set computations and allocations).
extension Machine {
    /// Processes `event` in `state` in place from the prepared table and returns its step, or
    /// returns `nil` when the algorithm must run: the event has a payload or a name without a
    /// column of its own, the state has raised events pending or is not one of the table's rows,
    /// or the outcome is dynamic (guards, actions, history; see the *Prepared events* article).
    /// The step's source is the state's configuration array before the call (taken over, not
    /// copied), its target the table's row (shared), its microsteps the table's; an ignored event
    /// (by an active state or the ``UnhandledEventPolicy``) has no microsteps and leaves `state`
    /// as it was. The caller checked that the state is started and not finished.
    ///
    /// - Throws: ``MachineError/invalidTransition(from:event:)`` for an unhandled event when
    ///   `rejectUnhandled`; `state` is then unchanged.
    func precomputedStep(_ event: Event, in state: inout MachineState, rejectUnhandled: Bool) throws -> Step? {
        let table = preparedTable
        guard event.payload.isNull, state.internalQueue.isEmpty, let column = table.columns[event.name],
            state.history.isEmpty || table.isValid(state.history),
            let row = table.row(of: &state)
        else { return nil }
        let entry = table.entry(row: row, column: Int(column))
        switch entry.kind {
        case .dynamic:
            return nil
        case .unhandled where rejectUnhandled:
            throw MachineError.invalidTransition(from: state.configuration, event: event.name)
        case .unhandled, .ignored:
            return Step(
                event: event, source: state.configuration, target: state.configuration, microsteps: [], state: state)
        case .move:
            let source = state.configuration
            table.share(entry, into: &state)
            let move = table.moves[Int(entry.move)]
            return Step(
                event: event, source: source, target: state.configuration, microsteps: move.microsteps, state: state)
        }
    }
}
