import RewindMachine

// Plain and typed names (`enum Screen: String`, `enum Action: String`) and `Encodable` payloads
// for every request and hook of a session. Each overload converts its arguments and forwards to
// the one `String`/`JSONValue` implementation in Session.swift.
//
// The `String`-named `Encodable` overloads are `@_disfavoredOverload`: a literal payload
// (`setNeedsTransition("failed", payload: "offline")`) is a `JSONValue`, so it takes the
// non-throwing `JSONValue` overload rather than encoding a `String`.

extension Session {
    /// Sends the event named `name` with an `Encodable` payload (encoded as a `JSONValue`).
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the payload cannot be
    ///   encoded (nothing written), the errors of ``send(_:payload:)-(String,JSONValue)``.
    @discardableResult
    @_disfavoredOverload
    public func send(_ name: String, payload: some Encodable) async throws -> Step {
        try await send(name, payload: try Self.jsonValue(of: payload, event: name))
    }

    /// Sends the events named `names` in one commit (see ``send(contentsOf:)``), each without a
    /// payload: `send(contentsOf: ["next", "next", "back"])`.
    @inlinable @discardableResult
    public func send(contentsOf names: some Sequence<String>) async throws -> [Step] {
        try await send(contentsOf: names.map { Event($0) })
    }

    /// Sends the typed events `names` in one commit (see ``send(contentsOf:)``), each without a
    /// payload.
    @inlinable @discardableResult
    public func send<Name: RawRepresentable<String>>(contentsOf names: some Sequence<Name>) async throws -> [Step] {
        try await send(contentsOf: names.map { Event($0.rawValue) })
    }

    /// Moves directly to the state `id` carrying `Encodable` data.
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the data cannot be
    ///   encoded (nothing written), the errors of `enter(_:data:)`.
    @discardableResult
    @_disfavoredOverload
    public func enter(_ id: String, data: some Encodable) async throws -> Step {
        try await enter(id, data: try Self.jsonValue(of: data, event: StepRecording.enterEvent))
    }

    /// Whether a direct move to the typed state `id` would be accepted now.
    public func canEnter<ID: RawRepresentable<String>>(_ id: ID) -> Bool {
        canEnter(id.rawValue)
    }

    /// Queues the typed event `event`, with `payload`, to be sent after the current step (see
    /// `setNeedsTransition(_:payload:)`).
    public func setNeedsTransition<Name: RawRepresentable<String>>(_ event: Name, payload: JSONValue = .null) {
        setNeedsTransition(event.rawValue, payload: payload)
    }

    /// Queues the event named `event` with an `Encodable` payload to be sent after the current
    /// step (see `setNeedsTransition(_:payload:)`).
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the payload cannot be
    ///   encoded (nothing queued).
    @_disfavoredOverload
    public func setNeedsTransition(_ event: String, payload: some Encodable) throws {
        setNeedsTransition(event, payload: try Self.jsonValue(of: payload, event: event))
    }

    /// Queues the typed event `event` with an `Encodable` payload to be sent after the current
    /// step (see `setNeedsTransition(_:payload:)`).
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the payload cannot be
    ///   encoded (nothing queued).
    @_disfavoredOverload
    public func setNeedsTransition<Name: RawRepresentable<String>>(_ event: Name, payload: some Encodable) throws {
        try setNeedsTransition(event.rawValue, payload: payload)
    }

    /// Queues a direct move to the typed state `state`, carrying `data`, to run after the current
    /// step (see `setNeedsTransition(to:data:)`).
    public func setNeedsTransition<ID: RawRepresentable<String>>(to state: ID, data: JSONValue = .null) {
        setNeedsTransition(to: state.rawValue, data: data)
    }

    /// Queues a direct move to the state `state` carrying `Encodable` data to run after the
    /// current step (see `setNeedsTransition(to:data:)`).
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the data cannot be
    ///   encoded (nothing queued).
    @_disfavoredOverload
    public func setNeedsTransition(to state: String, data: some Encodable) throws {
        setNeedsTransition(to: state, data: try Self.jsonValue(of: data, event: StepRecording.enterEvent))
    }

    /// Queues a direct move to the typed state `state` carrying `Encodable` data to run after the
    /// current step (see `setNeedsTransition(to:data:)`).
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the data cannot be
    ///   encoded (nothing queued).
    @_disfavoredOverload
    public func setNeedsTransition<ID: RawRepresentable<String>>(to state: ID, data: some Encodable) throws {
        try setNeedsTransition(to: state.rawValue, data: data)
    }

    /// Runs `hook` each time the typed state `state` is entered (`onDidEnter(Screen.detail) { … }`).
    public func onDidEnter<S: RawRepresentable<String>>(_ state: S, _ hook: @escaping @Sendable (StateChange) -> Void) {
        onDidEnter(state.rawValue, hook)
    }

    /// Runs `hook` each time the typed state `state` is exited.
    public func onWillExit<S: RawRepresentable<String>>(_ state: S, _ hook: @escaping @Sendable (StateChange) -> Void) {
        onWillExit(state.rawValue, hook)
    }

    /// Runs `hook` on ``update(deltaTime:)`` while the typed state `state` is active.
    public func onUpdate<S: RawRepresentable<String>>(
        _ state: S, _ hook: @escaping @Sendable (_ deltaTime: Double) -> Void
    ) {
        onUpdate(state.rawValue, hook)
    }
}
