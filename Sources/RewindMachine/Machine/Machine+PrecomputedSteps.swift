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
        var next = state
        guard let taken = try tableStep(event, in: &next, rejectUnhandled: rejectUnhandled) else { return nil }
        return Step(
            event: event, source: taken.source, target: next.configuration, microsteps: taken.microsteps,
            state: next)
    }

    /// Sends `event` to `state` in place when the machine's table holds its outcome, for a caller
    /// that records steps and so needs their parts rather than a ``Step`` (the engine): the new
    /// state is the one ``send(_:in:now:)-(Event,_,_)`` gives, the configuration before, the
    /// microsteps and the navigation are returned as the table holds them (shared arrays: no
    /// allocation, no copy of the state). Unlike ``send(_:in:now:)-(PreparedEvent,_,_)`` the
    /// event needs no preparing (its name is looked up once) and the target configuration is
    /// shared with the table rather than written into the state's array, so a copy of the state
    /// taken before the call (the step's source) costs no allocation.
    ///
    /// Returns `nil`, with `state` unchanged, when the general `send` must run: the state is not
    /// started or is finished, the event carries a payload or has no column of its own, the
    /// outcome is dynamic (guards, actions, history; see the *Prepared events* article), the state has
    /// raised events pending or is not one of the table's rows. For an ignored event (by an
    /// active state or the ``UnhandledEventPolicy``) the table step has no microsteps and `state`
    /// is unchanged.
    ///
    /// - Throws: ``MachineError/invalidTransition(from:event:)`` for an unhandled event when the
    ///   machine rejects those, as `send` does; `state` is then unchanged.
    package func sendFromTable(_ event: Event, in state: inout MachineState) throws -> TableStep? {
        guard state.isStarted, !state.isFinished else { return nil }
        return try tableStep(event, in: &state, rejectUnhandled: options.unhandledEvents == .reject)
    }

    /// The table lookup behind ``precomputedStep(_:in:rejectUnhandled:)`` and
    /// ``sendFromTable(_:in:)`` (the caller checked that the state is started and not finished).
    private func tableStep(
        _ event: Event, in state: inout MachineState, rejectUnhandled: Bool
    ) throws -> TableStep? {
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
            return TableStep(source: state.configuration, microsteps: [], navigation: [])
        case .move:
            let source = state.configuration
            table.share(entry, into: &state)
            let move = table.moves[Int(entry.move)]
            return TableStep(source: source, microsteps: move.microsteps, navigation: move.navigation)
        }
    }
}
