extension Interpreter {
    /// Sends a typed event (`enum Event: String`).
    @discardableResult
    public func send<E: RawRepresentable<String>>(_ event: E, payload: JSONValue = .null) throws -> Step? {
        try send(Event(event.rawValue, payload: payload))
    }

    /// Sends a typed event whose payload is any `Encodable` value.
    @discardableResult
    public func send<E: RawRepresentable<String>>(_ event: E, payload: some Encodable) throws -> Step? {
        try send(Event(event.rawValue, payload: try JSONValue(encoding: payload)))
    }

    /// Moves directly to a typed state (`enum Screen: String`).
    @discardableResult
    public func enter<S: RawRepresentable<String>>(_ state: S, data: JSONValue = .null) throws -> Step? {
        try enter(state.rawValue, data: data)
    }

    /// Moves directly to a typed state carrying any `Encodable` data (`.detail(kanji)`).
    @discardableResult
    public func enter<S: RawRepresentable<String>>(_ state: S, data: some Encodable) throws -> Step? {
        try enter(state.rawValue, data: try JSONValue(encoding: data))
    }

    /// Whether a direct move to a typed state would be accepted.
    public func canEnter<S: RawRepresentable<String>>(_ state: S) -> Bool {
        canEnter(state.rawValue)
    }

    /// Runs `hook` each time the typed state is entered.
    public func onDidEnter<S: RawRepresentable<String>>(_ state: S, _ hook: @escaping (StateChange) -> Void) {
        onDidEnter(state.rawValue, hook)
    }

    /// Runs `hook` each time the typed state is exited.
    public func onWillExit<S: RawRepresentable<String>>(_ state: S, _ hook: @escaping (StateChange) -> Void) {
        onWillExit(state.rawValue, hook)
    }

    /// Runs `hook` on `update(deltaTime:)` while the typed state is active.
    public func onUpdate<S: RawRepresentable<String>>(_ state: S, _ hook: @escaping (_ deltaTime: Double) -> Void) {
        onUpdate(state.rawValue, hook)
    }
}

extension Machine {
    /// Processes a typed event (`enum Event: String`).
    public func send<E: RawRepresentable<String>>(
        _ event: E, payload: JSONValue = .null, in state: MachineState, now: Duration = .zero
    ) throws -> Step {
        try send(Event(event.rawValue, payload: payload), in: state, now: now)
    }

    /// Moves directly to a typed state.
    public func enter<S: RawRepresentable<String>>(
        _ id: S, data: JSONValue = .null, in state: MachineState, now: Duration = .zero
    ) throws -> Step {
        try enter(id.rawValue, data: data, in: state, now: now)
    }

    /// Whether a direct move to a typed state would be accepted.
    public func canEnter<S: RawRepresentable<String>>(_ id: S, in state: MachineState) -> Bool {
        canEnter(id.rawValue, in: state)
    }
}
