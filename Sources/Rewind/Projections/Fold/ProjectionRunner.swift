import RewindStore

/// A registered projection with its state type erased, so the engine can hold projections of
/// different types in one list.
protocol ProjectionRunning: Sendable {
    /// The projection's name.
    var name: String { get }
    /// The projection's version.
    var version: UInt32 { get }
    /// When it runs.
    var mode: ProjectionMode { get }
    /// Whether the projection's keys are session ids (``Projection/keysAreSessionIDs``).
    var keysAreSessionIDs: Bool { get }
    /// A fold over consecutive records starting after global sequence `checkpoint`; with `keys`,
    /// one that folds only the records whose keys are among them (erasure's re-fold).
    func makeFold(after checkpoint: UInt64, onlyKeys keys: Set<String>?) -> any ProjectionFolding
}

extension ProjectionRunning {
    /// A fold over consecutive records starting after global sequence `checkpoint`.
    func makeFold(after checkpoint: UInt64) -> any ProjectionFolding {
        makeFold(after: checkpoint, onlyKeys: nil)
    }

    /// What a fold over `records` from `checkpoint` keeps when it failed on the record at
    /// `failed`: a fresh fold of the records before that one (a fold that threw is spoiled, a
    /// state may be half-updated), or `nil` when that fails too (the projection is not pure
    /// after all: the states stay as they were at `checkpoint`).
    ///
    /// - Throws: the state store's errors.
    func fold(
        before failed: UInt64, of records: some Sequence<TransitionRecord>, after checkpoint: UInt64,
        reading stored: some ProjectionStateReading
    ) throws -> (any ProjectionFolding)? {
        let fold = makeFold(after: checkpoint)
        do {
            for record in records where record.sequence > checkpoint && record.sequence < failed {
                try fold.apply(record, reading: stored)
            }
            return fold
        } catch is ProjectionError {
            return nil
        }
    }
}

/// A registered projection: the projection and the step its fold runs (see
/// ``ProjectionFoldStep``).
struct ProjectionRunner<P: Projection>: ProjectionRunning {
    let projection: P
    let mode: ProjectionMode

    var name: String { projection.name }
    var version: UInt32 { projection.version }
    var keysAreSessionIDs: Bool { projection.keysAreSessionIDs }

    func makeFold(after checkpoint: UInt64, onlyKeys keys: Set<String>?) -> any ProjectionFolding {
        // The built-in screen-flow projection folds record views in place (the same states its
        // `apply` gives, without copying records out); every other projection folds whole records.
        if let screenFlows = projection as? ScreenFlowProjection {
            return ProjectionFold(step: ScreenFlowFoldStep(projection: screenFlows), after: checkpoint, onlyKeys: keys)
        }
        return ProjectionFold(step: RecordFoldStep(projection: projection), after: checkpoint, onlyKeys: keys)
    }
}

extension Projection {
    /// This projection behind a type-erased runner.
    func runner(mode: ProjectionMode) -> any ProjectionRunning {
        ProjectionRunner(projection: self, mode: mode)
    }
}
