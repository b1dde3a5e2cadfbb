import RewindMachine

// `Encodable` payloads with plain and typed event names for the model, as for the session
// (Session+TypedNames.swift); each converts the payload and forwards to `send(_:payload:)`.

extension SessionModel {
    /// Sends the event named `name` with an `Encodable` payload and publishes the committed state
    /// before returning.
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the payload cannot be encoded
    ///   (nothing written or published), what the session's `send` throws.
    @discardableResult
    @_disfavoredOverload
    public func send(_ name: String, payload: some Encodable) async throws -> Step {
        try await send(name, payload: try Session.jsonValue(of: payload, event: name))
    }

    /// Sends a typed event, with an `Encodable` payload if given, and publishes the committed state
    /// before returning.
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the payload cannot be encoded
    ///   (nothing written or published), what the session's `send` throws.
    @discardableResult
    public func send<Name: RawRepresentable<String>>(
        _ name: Name, payload: some Encodable = JSONValue.null
    ) async throws -> Step {
        try await send(name.rawValue, payload: payload)
    }
}
