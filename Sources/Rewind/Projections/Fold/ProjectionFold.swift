import RewindStore

/// One run of a projection over consecutive records (a ``ProjectionFold`` with its step's type
/// erased): each touched key's state is read once through a ``ProjectionStateReading``, folded in
/// memory, and written once through a ``ProjectionStateWriting``.
///
/// A fold whose `apply` threw is spoiled (a state may be half-updated): discard it and redo the
/// records before the failing one with a fresh fold (``ProjectionRunning/fold(before:of:after:reading:)``).
protocol ProjectionFolding: AnyObject {
    /// The global sequence of the last record applied.
    var checkpoint: UInt64 { get }
    /// Folds `record` into its key's state, reading that state from `stored` the first time.
    /// - Throws: ``ProjectionError/applyFailed(projection:sequence:session:cause:)`` naming
    ///   `record` (also when its key is invalid or its stored state unreadable), the state
    ///   store's errors.
    func apply(_ record: TransitionRecord, reading stored: some ProjectionStateReading) throws
    /// Folds the record `view` shows, as ``apply(_:reading:)`` folds the record itself (a
    /// catch-up reads views; steps that need the whole record copy it out).
    func apply(_ view: RecordView, reading stored: some ProjectionStateReading) throws
    /// The keys of the states `records` past the checkpoint change, each once, in first-use
    /// order: what a server loads before folding them.
    func keys(of records: some Sequence<TransitionRecord>) -> [String]
    /// Moves the checkpoint to `sequence` when it is behind: the sequences up to it that the fold
    /// did not see have no record (they were erased).
    func advance(through sequence: UInt64)
    /// Writes (or deletes) every state changed since the last write.
    /// - Throws: ``ProjectionError/stateEncodingFailed(projection:key:cause:)`` before writing
    ///   anything, the state store's errors.
    func write(to writer: some ProjectionStateWriting) throws
}

/// The one fold driver, on a device (inline in an append's transaction, catch-ups, rebuilds) and
/// on the fleet server (its catch-up's chunks, through ``ProjectionChunkFold``): reads each
/// touched key's state once, applies the projection's step, and writes what changed.
///
/// It is called through ``ProjectionFolding`` (its step's type erased), which runs the generic
/// code: three generic metadata lookups and unspecialized value witnesses per record, about 1,100
/// instructions of a rebuild's 5,600 (callgrind). The built-in projections' steps get
/// specialized copies of the two `apply` methods, which the generic ones dispatch to
/// (`@_specialize`); a custom ``Projection``'s fold runs the generic code.
final class ProjectionFold<Step: ProjectionFoldStep>: ProjectionFolding {
    /// Everything mutable, in one struct, accessed once per record. Without a dynamic
    /// exclusivity check (`@exclusivity(unchecked)`, about 80 instructions a record): nothing
    /// re-enters the fold while it runs (its step is a value; the state readers and writers it is
    /// handed are not given the fold).
    @exclusivity(unchecked) private var fold: Fold

    /// A fold of `step` after `checkpoint`; with `keys`, of the records whose keys are among
    /// them only (the others move the checkpoint and nothing else).
    init(step: Step, after checkpoint: UInt64, onlyKeys keys: Set<String>? = nil) {
        fold = Fold(step: step, checkpoint: checkpoint, states: FoldStates(name: step.name), onlyKeys: keys)
    }

    var checkpoint: UInt64 { fold.checkpoint }

    @_specialize(kind:partial,where Step == ScreenFlowFoldStep)
    @_specialize(kind:partial,where Step == RecordFoldStep<NavigationProjection>)
    func apply(_ record: TransitionRecord, reading stored: some ProjectionStateReading) throws {
        try fold.apply(record, reading: stored)
    }

    @_specialize(kind:partial,where Step == ScreenFlowFoldStep)
    @_specialize(kind:partial,where Step == RecordFoldStep<NavigationProjection>)
    func apply(_ view: RecordView, reading stored: some ProjectionStateReading) throws {
        try fold.apply(view, reading: stored)
    }

    func keys(of records: some Sequence<TransitionRecord>) -> [String] {
        var seen = Set<String>()
        var keys: [String] = []
        for record in records where record.sequence > fold.checkpoint {
            if let key = fold.step.key(for: record), seen.insert(key).inserted { keys.append(key) }
        }
        return keys
    }

    func advance(through sequence: UInt64) {
        fold.checkpoint = max(fold.checkpoint, sequence)
    }

    func write(to writer: some ProjectionStateWriting) throws {
        try fold.states.write(to: writer, encode: fold.step.encode)
    }

    private struct Fold {
        var step: Step
        var checkpoint: UInt64
        var states: FoldStates<Step.State>
        /// When set, the only keys folded (see `init(step:after:onlyKeys:)`).
        var onlyKeys: Set<String>?
        /// The strings of the records copied out of views, handed out again as they repeat.
        var recent = RecentStrings()

        @inline(__always)
        mutating func apply(_ record: TransitionRecord, reading stored: some ProjectionStateReading) throws {
            guard var key = step.key(for: record), onlyKeys?.contains(key) ?? true else {
                checkpoint = record.sequence
                return
            }
            let index = try key.withUTF8 { utf8 in
                try self.index(of: UnsafeRawBufferPointer(utf8), sequence: record.sequence, reading: stored) {
                    record.session
                }
            }
            try changeState(at: index, sequence: record.sequence, session: { record.session }) { step, state in
                try step.apply(record, to: &state)
            }
        }

        @inline(__always)
        mutating func apply(_ view: RecordView, reading stored: some ProjectionStateReading) throws {
            switch step.key(of: view) {
            case .needsRecord:
                try apply(view.record(reusing: &recent), reading: stored)
            case .none:
                checkpoint = view.sequence
            case .key(let key):
                if let onlyKeys, !onlyKeys.contains(String(decoding: key, as: UTF8.self)) {
                    checkpoint = view.sequence
                    return
                }
                let index = try self.index(of: key, sequence: view.sequence, reading: stored) { view.session }
                try changeState(at: index, sequence: view.sequence, session: { view.session }) { step, state in
                    try step.apply(view, to: &state)
                }
            }
        }

        /// Runs the step on the state at `index` for the record at `sequence`: marks it changed and
        /// moves the checkpoint, or throws ``ProjectionError/applyFailed(projection:sequence:session:cause:)``.
        @inline(__always)
        private mutating func changeState(
            at index: Int, sequence: UInt64, session: () -> SessionID,
            _ change: (inout Step, inout Step.State?) throws -> Void
        ) throws {
            do {
                try change(&step, &states.states[index])
            } catch {
                throw ProjectionError.applyFailed(
                    projection: states.name, sequence: sequence, session: session(), cause: ErrorCause(error))
            }
            states.markDirty(index)
            checkpoint = sequence
        }

        /// The index of the state of the key whose UTF-8 is `bytes`, read from `stored` the first
        /// time.
        private mutating func index(
            of bytes: UnsafeRawBufferPointer, sequence: UInt64, reading stored: some ProjectionStateReading,
            session: () -> SessionID
        ) throws -> Int {
            if let index = states.index(of: bytes) { return index }
            let key = String(decoding: bytes, as: UTF8.self)
            do {
                return try states.load(key, bytes: bytes, from: stored, decode: step.decode)
            } catch let error as ProjectionError {
                // A key too long or a stored state unreadable: this record is where it stops.
                throw ProjectionError.applyFailed(
                    projection: states.name, sequence: sequence, session: session(), cause: ErrorCause(error))
            }
        }
    }
}
