import RewindStore

/// Queries over the ``NavigationProjection``: a session's stack, depth statistics
/// (``Engine/navigationStacks``).
///
/// ```swift
/// try engine.register(NavigationProjection())
/// let screens = try engine.navigationStacks.stack(of: session.id)?.screens  // ["all", "detail"]
/// ```
public struct NavigationStacks: Sendable {
    /// The projection's stored states.
    public let reader: ProjectionReader<NavigationProjection>

    /// Creates the queries over `reader`.
    public init(reader: ProjectionReader<NavigationProjection>) {
        self.reader = reader
    }

    /// The navigation stack of `session` after its last record, or `nil` when it has no record
    /// (or the projection has not seen it).
    public func stack(of session: SessionID) throws -> ScreenStack? {
        try reader.state(forKey: session.rawValue)?.stack
    }

    /// Every session's stack, by session id (its bytes: see ``ProjectionKey``).
    public func all() throws -> [ProjectionKey: ScreenStack] {
        try reader.states().mapValues(\.stack)
    }

    /// The depths of the sessions' stacks (only `machine`'s sessions when given).
    public func depthStatistics(machine: String? = nil) throws -> StackDepthStatistics {
        var statistics = StackDepthStatistics()
        try reader.forEachState { _, navigation in
            if machine == nil || navigation.machine == machine { statistics.add(navigation.stack) }
            return .next
        }
        return statistics
    }
}
