/// Prepared events: sending an event resolved once against the machine's table of precomputed
/// outcomes, into a state changed in place. See <doc:PreparedEvents>.
extension Machine {
    /// Prepares `event` for repeated sends with ``send(_:in:now:)-(PreparedEvent,_,_)``: finds
    /// its column in the machine's table of precomputed outcomes (built with the machine). Keep
    /// prepared events rather than preparing on every send.
    public func prepare(_ event: Event) -> PreparedEvent {
        let column = event.payload.isNull ? preparedTable.column(for: event.name) : -1
        return PreparedEvent(
            event: event, table: preparedTable.serial, column: column,
            interned: column >= 0 && column != preparedTable.otherColumn)
    }

    /// Prepares the event named `name`, with an optional payload (an event with a payload always
    /// takes the general algorithm; see ``PreparedEvent/isPrecomputed``).
    public func prepare(_ name: String, payload: JSONValue = .null) -> PreparedEvent {
        prepare(Event(name, payload: payload))
    }

    /// Processes a prepared event, changing `state` in place: the same new state, the same errors
    /// and the same exits, entries and navigation as ``send(_:in:now:)-(Event,_,_)``, without
    /// building a ``Step`` when the outcome is precomputed.
    ///
    /// The outcome is precomputed (a table lookup: no allocation, no id hashed once the state has
    /// been seen) when the event has no payload and the transitions it selects in the active
    /// configuration, with the states they exit and enter and any eventless transitions that
    /// follow, involve no named guard, no action (custom, raise, send, log, cancel) and no history
    /// state; `In(state)` guards and done events are fine. Otherwise, and whenever the state has
    /// raised events pending or history memory naming unknown states, or the event was prepared by
    /// another machine, the general algorithm runs and the summary keeps its step.
    ///
    /// - Parameters:
    ///   - event: An event prepared by this machine (or a copy of it) with ``prepare(_:)``.
    ///   - state: The state to change; on return, the state after the macrostep.
    ///   - now: The current time of the interpreter's clock, since its epoch (for delayed sends,
    ///     which only the general algorithm makes).
    /// - Returns: What the send did; ``navigation(of:)``, ``exited(of:)`` and ``entered(of:)``
    ///   give its details.
    /// - Throws: the errors of ``send(_:in:now:)-(Event,_,_)``, such as
    ///   ``MachineError/invalidTransition(from:event:)``; on error `state` is unchanged.
    @discardableResult
    public func send(_ event: PreparedEvent, in state: inout MachineState, now: Duration = .zero) throws -> StepSummary
    {
        let table = preparedTable
        if event.column >= 0, event.table == table.serial, !state.isFinished, state.internalQueue.isEmpty,
            state.history.isEmpty || table.isValid(state.history),
            let row = table.row(of: &state)
        {
            let entry = table.entry(row: row, column: Int(event.column))
            switch entry.kind {
            case .move:
                table.apply(entry, to: &state)
                return StepSummary(.moved(entry.move), table: table.serial)
            case .ignored:
                return StepSummary(.unchanged)
            case .unhandled:
                if options.unhandledEvents == .reject {
                    throw MachineError.invalidTransition(from: state.configuration, event: event.event.name)
                }
                return StepSummary(.unchanged)
            case .dynamic:
                break
            }
        }
        let step = try send(
            event.event, in: &state, now: now, rejectUnhandled: options.unhandledEvents == .reject,
            allowPrecomputed: table.serial != event.table)
        return StepSummary(.evaluated(step))
    }

    /// The navigation operations of the step `summary` describes, in order (as ``Step/navigation``).
    ///
    /// - Precondition: `summary` was returned by this machine (or a copy of it).
    public func navigation(of summary: StepSummary) -> [NavigationOperation] {
        switch summary.outcome {
        case .unchanged: return []
        case .moved(let move): return precomputedMove(move, of: summary).navigation
        case .evaluated(let step): return step.navigation
        }
    }

    /// The states the step `summary` describes exited, in exit order (as ``Step/exited``).
    ///
    /// - Precondition: `summary` was returned by this machine (or a copy of it).
    public func exited(of summary: StepSummary) -> [String] {
        switch summary.outcome {
        case .unchanged: return []
        case .moved(let move): return precomputedMove(move, of: summary).exited
        case .evaluated(let step): return step.exited
        }
    }

    /// The states the step `summary` describes entered, in entry order (as ``Step/entered``).
    ///
    /// - Precondition: `summary` was returned by this machine (or a copy of it).
    public func entered(of summary: StepSummary) -> [String] {
        switch summary.outcome {
        case .unchanged: return []
        case .moved(let move): return precomputedMove(move, of: summary).entered
        case .evaluated(let step): return step.entered
        }
    }

    private func precomputedMove(_ move: Int32, of summary: StepSummary) -> PreparedTable.Move {
        precondition(
            summary.table == preparedTable.serial, "a StepSummary was given to a machine that did not make it")
        return preparedTable.moves[Int(move)]
    }
}
