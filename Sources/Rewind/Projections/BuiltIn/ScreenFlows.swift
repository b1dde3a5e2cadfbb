import RewindStore

/// Queries over the ``ScreenFlowProjection``: where every session is now, which sessions are in
/// a state, and funnels (``Engine/screenFlows``).
///
/// ```swift
/// try engine.register(ScreenFlowProjection())
/// let atLogin = try engine.screenFlows.sessions(inState: "login", machine: "onboarding")
/// let funnel = try engine.screenFlows.funnel(machine: "onboarding")
/// print(funnel.reached["home", default: 0], "of", funnel.sessions, "reached home")
/// ```
public struct ScreenFlows: Sendable {
    /// The projection's stored states.
    public let reader: ProjectionReader<ScreenFlowProjection>
    /// The coder of the records' state data.
    public let coder: any PayloadCoder

    /// Creates the queries over `reader`, decoding state data with `coder`.
    public init(reader: ProjectionReader<ScreenFlowProjection>, coder: any PayloadCoder = JSONPayloadCoder()) {
        self.reader = reader
        self.coder = coder
    }

    /// Where `session` is now, or `nil` when it has no record (or the projection has not seen it).
    public func flow(of session: SessionID) throws -> ScreenFlowProjection.Flow? {
        try reader.state(forKey: session.rawValue)
    }

    /// Every session's flow, by session id (its bytes: see ``ProjectionKey``).
    public func all() throws -> [ProjectionKey: ScreenFlowProjection.Flow] {
        try reader.states()
    }

    /// The data carried by the states `session`'s last step entered, decoded (`.null` when none).
    ///
    /// - Throws: ``ProjectionError/corruptedState(projection:key:cause:)`` when it cannot be decoded.
    public func stateData(of session: SessionID) throws -> JSONValue? {
        guard let flow = try flow(of: session) else { return nil }
        if flow.stateData.isEmpty { return .null }
        do {
            return try coder.decode(JSONValue.self, from: flow.stateData)
        } catch {
            throw ProjectionError.corruptedState(
                projection: reader.projection.name, key: session.rawValue, cause: ErrorCause(error))
        }
    }

    /// The sessions whose active configuration includes `state` now, ordered by id; only those of
    /// `machine` when given.
    public func sessions(inState state: String, machine: String? = nil) throws -> [SessionID] {
        var sessions: [SessionID] = []
        try reader.forEachState { key, flow in
            if flow.isIn(state), machine == nil || flow.machine == machine, let id = try? SessionID(key) {
                sessions.append(id)
            }
            return .next
        }
        return sessions
    }

    /// The funnel of `machine`'s sessions: how many reached each state and where they are now.
    public func funnel(machine: String) throws -> Funnel {
        var funnel = Funnel(machine: machine)
        try reader.forEachState { _, flow in
            guard flow.machine == machine else { return .next }
            funnel.add(flow)
            return .next
        }
        return funnel
    }
}
