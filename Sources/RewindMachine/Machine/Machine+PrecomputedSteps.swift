/// The general `send` on the table of prepared outcomes: when the event's outcome in the active
/// configuration is precomputed, the ``Step`` is assembled from the probe's microsteps instead of
/// running the algorithm (the same step, without its set computations and allocations).
extension Machine {
    /// The step of `event` in `state` read from the prepared table, `nil` when the algorithm must
    /// run: the event has a payload or a name without a column of its own, the state has raised
    /// events pending or is not one of the table's rows, or the outcome is dynamic.
    ///
    /// - Throws: ``MachineError/invalidTransition(from:event:)`` for an unhandled event when
    ///   `rejectUnhandled`.
    func precomputedStep(_ event: Event, in state: MachineState, rejectUnhandled: Bool) throws -> Step? {
        let table = preparedTable
        guard event.payload.isNull, state.internalQueue.isEmpty, let column = table.columns[event.name],
              state.history.isEmpty || table.isValid(state.history)
        else { return nil }
        var next = state
        guard let row = table.row(of: &next) else { return nil }
        let entry = table.entry(row: row, column: Int(column))
        switch entry.kind {
        case .dynamic:
            return nil
        case .unhandled where rejectUnhandled:
            throw MachineError.invalidTransition(from: state.configuration, event: event.name)
        case .unhandled, .ignored:
            return Step(
                event: event, source: state.configuration, target: state.configuration, microsteps: [], state: next)
        case .move:
            table.share(entry, into: &next)
            return Step(
                event: event, source: state.configuration, target: next.configuration,
                microsteps: table.moves[Int(entry.move)].microsteps, state: next)
        }
    }
}
