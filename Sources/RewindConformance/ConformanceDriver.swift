import RewindMachine

/// Runs a machine through a case's script the way the engine runs a session: an ``Interpreter``
/// on a ``ManualClock``, so the machine's own `<send>`s go to the external queue and are
/// delivered when due (at once after the step that made them when they have no delay), each as
/// its own macrostep, and a step's `after` moves the clock, delivering every send that comes
/// due on the way at its due time, in due order.
struct ConformanceDriver {
    let machine: Machine

    /// Starts the machine and plays `script`; the first mismatch or error fails the case.
    func run(_ script: ConformanceCase.Script) -> ConformanceCase.Outcome {
        let clock = ManualClock()
        let interpreter = Interpreter(machine: machine, clock: clock)
        do {
            try interpreter.start()
            if let failure = check(interpreter, script.initialConfiguration, after: "start") { return .failed(failure) }
            for (position, step) in script.events.enumerated() {
                var label = "step #\(position + 1)"
                if let after = step.after {
                    guard after >= 0 else { return .failed("\(label): 'after' is negative (\(after))") }
                    try advance(clock, by: .milliseconds(after), delivering: interpreter)
                    label += " (after \(after) ms)"
                }
                if let event = step.event {
                    label += " '\(event.name)'"
                    // A finished machine takes no more events and keeps its configuration.
                    if !interpreter.state.isFinished { try interpreter.send(Event(event.name)) }
                }
                if let failure = check(interpreter, step.nextConfiguration, after: label) { return .failed(failure) }
            }
        } catch {
            return .failed("\(error)")
        }
        return .passed
    }

    /// Moves the clock `duration` on, stopping at each pending send's due time to deliver it
    /// (and what it makes due) before going further.
    private func advance(_ clock: ManualClock, by duration: Duration, delivering interpreter: Interpreter) throws {
        let end = clock.now + duration
        while let due = interpreter.state.pendingSends.first?.due, due <= end {
            if due > clock.now { clock.advance(by: due - clock.now) }
            try interpreter.deliverDueSends()
        }
        clock.advance(by: end - clock.now)
    }

    /// A mismatch between the interpreter's atomic configuration and `expected`, or the errors of
    /// sends delivered after a step; `nil` when neither.
    private func check(_ interpreter: Interpreter, _ expected: [String], after label: String) -> String? {
        let errors = interpreter.takeDeferredErrors()
        if !errors.isEmpty {
            return "after \(label): " + errors.map { "\($0)" }.joined(separator: "; ")
        }
        let actual = machine.atomicStates(of: interpreter.state.configuration)
        if Set(actual) == Set(expected) { return nil }
        return
            "after \(label): expected [\(expected.sorted().joined(separator: ", "))], got [\(actual.sorted().joined(separator: ", "))]"
    }
}
