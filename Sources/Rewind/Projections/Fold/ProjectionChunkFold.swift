import RewindStore

/// A projection's fold over one chunk of records read elsewhere: what the fleet server's catch-up
/// runs in each PostgreSQL transaction. It is the device's fold driver (``ProjectionFold``, with
/// the step the engine would give the projection), so the server's states are the device's byte
/// for byte, with the same key checks and the same typed ``ProjectionError``s.
///
/// Use: ``keys(of:)`` names the states the chunk changes (load them), ``fold(_:reading:)`` folds
/// the chunk, ``write(to:)`` writes what changed; ``checkpoint`` and ``error`` are what to store
/// beside them. One chunk per fold.
@_spi(Internals) public final class ProjectionChunkFold {
    private let runner: any ProjectionRunning
    private let start: UInt64
    private var current: any ProjectionFolding

    /// Why the fold stopped: the record it failed on, or `nil`. The states and ``checkpoint`` are
    /// those of the records before it.
    public private(set) var error: ProjectionError?

    /// A fold of `projection` over records after global sequence `checkpoint`.
    public init<P: Projection>(_ projection: P, after checkpoint: UInt64) {
        runner = projection.runner(mode: .catchUp)
        start = checkpoint
        current = runner.makeFold(after: checkpoint)
    }

    /// The projection's name.
    public var name: String { runner.name }
    /// The projection's version.
    public var version: UInt32 { runner.version }
    /// The global sequence of the last record folded.
    public var checkpoint: UInt64 { current.checkpoint }

    /// The keys of the states `records` past the checkpoint change, each once.
    public func keys(of records: some Sequence<TransitionRecord>) -> [String] {
        current.keys(of: records)
    }

    /// Folds `records` past the checkpoint, in global order, reading each key's stored state from
    /// `stored` the first time. When the projection fails on a record, the fold keeps what the
    /// records before it give and records the failure in ``error``.
    ///
    /// - Throws: the state store's errors only.
    public func fold(_ records: [TransitionRecord], reading stored: some ProjectionStateReading) throws {
        guard error == nil else { return }
        do {
            for record in records where record.sequence > current.checkpoint {
                try current.apply(record, reading: stored)
            }
        } catch let failure as ProjectionError {
            error = failure
            let failed = ProjectionRegistry.failure(of: failure, records: records).sequence
            current =
                try runner.fold(before: failed, of: records, after: start, reading: stored)
                ?? runner.makeFold(after: start)
        }
    }

    /// Writes (or deletes) every state the fold changed.
    ///
    /// - Throws: ``ProjectionError/stateEncodingFailed(projection:key:cause:)`` before writing
    ///   anything, the state store's errors.
    public func write(to writer: some ProjectionStateWriting) throws {
        try current.write(to: writer)
    }
}
