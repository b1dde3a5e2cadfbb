/// The `Machine` entry points that took the clock's time as milliseconds, before `Duration`
/// became the unit of the public API: each converts once and calls its `Duration` form.
extension Machine {
    /// ``start(context:now:)`` at `now` milliseconds.
    @available(*, deprecated, message: "pass the time as a Duration: now: .milliseconds(n)")
    public func start(context: JSONValue = .null, now: Int64) throws -> Step {
        try start(context: context, now: .milliseconds(now))
    }

    /// ``send(_:in:now:)-(Event,_,_)`` at `now` milliseconds.
    @available(*, deprecated, message: "pass the time as a Duration: now: .milliseconds(n)")
    public func send(_ event: Event, in state: MachineState, now: Int64) throws -> Step {
        try send(event, in: state, now: .milliseconds(now))
    }

    /// ``send(_:payload:in:now:)`` at `now` milliseconds.
    @available(*, deprecated, message: "pass the time as a Duration: now: .milliseconds(n)")
    public func send(_ name: String, payload: JSONValue = .null, in state: MachineState, now: Int64) throws -> Step {
        try send(name, payload: payload, in: state, now: .milliseconds(now))
    }

    /// ``send(_:in:now:)-(PreparedEvent,_,_)`` at `now` milliseconds.
    @available(*, deprecated, message: "pass the time as a Duration: now: .milliseconds(n)")
    @discardableResult
    public func send(_ event: PreparedEvent, in state: inout MachineState, now: Int64) throws -> StepSummary {
        try send(event, in: &state, now: .milliseconds(now))
    }

    /// ``sendNextDue(in:now:)`` at `now` milliseconds.
    @available(*, deprecated, message: "pass the time as a Duration: now: .milliseconds(n)")
    public func sendNextDue(in state: MachineState, now: Int64) throws -> Step? {
        try sendNextDue(in: state, now: .milliseconds(now))
    }

    /// ``enter(_:data:in:now:)`` at `now` milliseconds.
    @available(*, deprecated, message: "pass the time as a Duration: now: .milliseconds(n)")
    public func enter(_ id: String, data: JSONValue = .null, in state: MachineState, now: Int64) throws -> Step {
        try enter(id, data: data, in: state, now: .milliseconds(now))
    }

    /// The typed ``send(_:payload:in:now:)`` at `now` milliseconds.
    @available(*, deprecated, message: "pass the time as a Duration: now: .milliseconds(n)")
    public func send<E: RawRepresentable<String>>(
        _ event: E, payload: JSONValue = .null, in state: MachineState, now: Int64
    ) throws -> Step {
        try send(event, payload: payload, in: state, now: .milliseconds(now))
    }

    /// The typed ``enter(_:data:in:now:)`` at `now` milliseconds.
    @available(*, deprecated, message: "pass the time as a Duration: now: .milliseconds(n)")
    public func enter<S: RawRepresentable<String>>(
        _ id: S, data: JSONValue = .null, in state: MachineState, now: Int64
    ) throws -> Step {
        try enter(id, data: data, in: state, now: .milliseconds(now))
    }
}
