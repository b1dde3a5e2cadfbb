/// The general `send` on the table of prepared outcomes: when the event's outcome in the active
/// configuration is precomputed, the ``Step`` is assembled from the table's shared arrays instead
/// of running the algorithm (the same step, without its set computations and allocations).
extension Machine {
    /// Processes `event` in `state` in place from the prepared table and returns the step's
    /// microsteps (the table's, shared; none for an ignored event), or returns `nil` when the
    /// algorithm must run: the event has a payload or a name without a column of its own, the
    /// state has raised events pending or is not one of the table's rows, or the outcome is
    /// dynamic (guards, actions, history; see the *Prepared events* article). The caller builds
    /// the ``Step`` (its source the configuration before the call, its target the one after, a
    /// row of the table): returned from here in an optional, the whole step was copied once more
    /// (callgrind, Benchmarks/HISTORY.md, 2026-11-29). An ignored event (by an active state or the
    /// ``UnhandledEventPolicy``) leaves `state` as it was. The caller checked that the state is
    /// started and not finished.
    ///
    /// - Throws: ``MachineError/invalidTransition(from:event:)`` for an unhandled event when
    ///   `rejectUnhandled`; `state` is then unchanged.
    func precomputedMicrosteps(_ event: Event, in state: inout MachineState, rejectUnhandled: Bool) throws
        -> [Microstep]?
    {
        let table = preparedTable
        guard event.payload.isNull, state.internalQueue.isEmpty, let column = table.columns.column(of: event.name),
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
            return []
        case .move:
            table.share(entry, into: &state)
            return table.moves[Int(entry.move)].microsteps
        }
    }
}
