import RewindStore

extension Engine {
    /// Registers `projection` and catches it up from its stored checkpoint to the head (rebuilding
    /// it first when its stored version differs); in ``ProjectionMode/inline`` mode it is then
    /// updated in the same write transaction as every append. Runs synchronously, on the calling
    /// thread, in write transactions of up to 50,000 records.
    ///
    /// - Returns: its status once caught up.
    /// - Throws: ``ProjectionError/alreadyRegistered(_:)`` or ``ProjectionError/invalidName(_:)``
    ///   (not registered); ``ProjectionError/applyFailed(projection:sequence:session:cause:)``
    ///   when it fails on a record (it **is** registered, and stopped before that record: fix
    ///   the code and call ``catchUpProjections(progress:)``); the store's errors.
    @discardableResult
    public func register<P: Projection>(
        _ projection: P, mode: ProjectionMode = .inline,
        progress: (ProjectionProgress) -> Void = { _ in }
    ) throws -> ProjectionStatus {
        let runner = ProjectionRunner(projection: projection, mode: mode)
        try projections.add(runner)
        return try projections.catchUp(runner, store: writableStore, progress: progress)
    }

    /// The names of the registered projections, in registration order.
    public var registeredProjections: [String] {
        projections.all.map(\.name)
    }

    /// Catches up every registered projection from its checkpoint to the head (the
    /// ``ProjectionMode/catchUp`` ones, and inline ones that stopped on a failure). A projection
    /// that fails stops before the failing record; the others still run.
    ///
    /// - Throws: the first ``ProjectionError/applyFailed(projection:sequence:session:cause:)``
    ///   after all of them ran; the store's errors.
    public func catchUpProjections(progress: (ProjectionProgress) -> Void = { _ in }) throws {
        var firstFailure: (any Error)?
        for runner in projections.all {
            do {
                try projections.catchUp(runner, store: writableStore, progress: progress)
            } catch let error as ProjectionError {
                firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure { throw firstFailure }
    }

    /// Rebuilds the registered projection `name` from the first record: its states and
    /// checkpoint are deleted, then it is caught up, reporting progress after each batch.
    ///
    /// - Throws: ``ProjectionError/notRegistered(_:)``, the errors of
    ///   ``catchUpProjections(progress:)``.
    @discardableResult
    public func rebuildProjection(
        named name: String, progress: (ProjectionProgress) -> Void = { _ in }
    ) throws -> ProjectionStatus {
        guard let runner = projections.runner(named: name) else { throw ProjectionError.notRegistered(name) }
        return try projections.rebuild(runner, store: writableStore, progress: progress)
    }

    /// The stored status of the projection `name` (checkpoint, version, failure), or `nil` when it
    /// never ran on this store.
    public func projectionStatus(named name: String) throws -> ProjectionStatus? {
        try store.read { try ProjectionRegistry.status(of: name, in: $0) }
    }

    /// Typed read access to `projection`'s stored states.
    public func reader<P: Projection>(for projection: P) -> ProjectionReader<P> {
        ProjectionReader(store: writableStore, projection: projection)
    }

    /// Queries over the built-in ``ScreenFlowProjection`` (register it first).
    public var screenFlows: ScreenFlows {
        ScreenFlows(reader: reader(for: ScreenFlowProjection()), coder: store.coder)
    }

    /// Queries over the built-in ``NavigationProjection`` (register it first).
    public var navigationStacks: NavigationStacks {
        NavigationStacks(reader: reader(for: NavigationProjection()))
    }
}
