import RewindStore

/// Typed, read-only access to the stored states of a projection (see
/// ``Engine/reader(for:)``). Every call reads one consistent snapshot of the store; the states
/// are as of the projection's checkpoint (``status()``).
public struct ProjectionReader<P: Projection>: Sendable {
    /// The store read from.
    public let store: TransitionStore
    /// The projection whose states are read (its name and decoding).
    public let projection: P

    /// Creates a reader of `projection`'s states in `store` (registered or not).
    public init(store: TransitionStore, projection: P) {
        self.store = store
        self.projection = projection
    }

    /// The stored checkpoint, version and failure, or `nil` when the projection never ran here.
    public func status() throws -> ProjectionStatus? {
        try store.read { try ProjectionRegistry.status(of: projection.name, in: $0) }
    }

    /// The state under `key`, or `nil`.
    ///
    /// - Throws: ``ProjectionError/corruptedState(projection:key:cause:)``.
    public func state(forKey key: String) throws -> P.State? {
        try store.read { transaction in
            try transaction.withValue(
                forKey: ProjectionKeys.prefix(projection.name) + Array(key.utf8), in: .projections
            ) {
                try decode($0, key: key)
            }
        }
    }

    /// Calls `body` with every key and state, ordered by the key's UTF-8 bytes, until it returns
    /// `.stop`.
    public func forEachState(_ body: (_ key: String, _ state: P.State) throws -> IterationControl) throws {
        let prefix = ProjectionKeys.prefix(projection.name)
        try store.read { transaction in
            try transaction.forEach(in: .projections, from: prefix) { key, value in
                guard key.starts(with: prefix) else { return .stop }
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: key[prefix.count...]), as: UTF8.self)
                return try body(name, try decode(value, key: name))
            }
        }
    }

    /// Every key with its state. Keys equal as Swift `String`s but different in bytes are two
    /// states, so they are keyed by ``ProjectionKey`` (compared by bytes), not `String`.
    public func states() throws -> [ProjectionKey: P.State] {
        var states: [ProjectionKey: P.State] = [:]
        try forEachState { key, state in
            states[ProjectionKey(key)] = state
            return .next
        }
        return states
    }

    private func decode(_ bytes: UnsafeRawBufferPointer, key: String) throws -> P.State {
        do {
            return try projection.decode(bytes)
        } catch {
            throw ProjectionError.corruptedState(projection: projection.name, key: key, cause: ErrorCause(error))
        }
    }
}
