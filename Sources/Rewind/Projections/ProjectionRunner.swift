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
    /// A fold over consecutive records starting after global sequence `checkpoint`.
    func makeFold(after checkpoint: UInt64) -> any ProjectionFolding
}

/// One run of a projection over consecutive records: each touched key's state is read from the
/// store once, folded in memory, and written once by ``write(to:)``.
///
/// A fold whose ``apply(_:in:)`` threw is spoiled (a state may be half-updated): discard it and
/// redo the records before the failing one with a fresh fold.
protocol ProjectionFolding: AnyObject {
    /// The global sequence of the last record applied.
    var checkpoint: UInt64 { get }
    /// Folds `record` into its key's state, reading that state from `transaction` the first time.
    /// - Throws: ``ProjectionError/applyFailed(projection:sequence:session:cause:)`` naming
    ///   `record` (also when its key is invalid or its stored state unreadable), LMDB's errors.
    func apply(_ record: TransitionRecord, in transaction: StoreReadTransaction) throws
    /// Folds the record `view` shows, as ``apply(_:in:)`` folds the record itself (a catch-up
    /// reads views; folds that need the whole record copy it out).
    func apply(_ view: RecordView, in transaction: StoreReadTransaction) throws
    /// Writes (or deletes) every state changed since the last write.
    /// - Throws: ``ProjectionError/stateEncodingFailed(projection:key:cause:)`` before writing
    ///   anything, LMDB's errors.
    func write(to transaction: StoreWriteTransaction) throws
}

/// The key of a projection's state in the `projections` database: name, NUL, state key.
enum ProjectionKeys {
    static let maximumNameBytes = 100
    static let maximumKeyBytes = 400

    static func prefix(_ name: String) -> [UInt8] {
        var bytes = Array(name.utf8)
        bytes.append(0)
        return bytes
    }

    static func validate(name: String) throws {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= maximumNameBytes, !bytes.contains(0) else {
            throw ProjectionError.invalidName(name)
        }
    }
}

struct ProjectionRunner<P: Projection>: ProjectionRunning {
    let projection: P
    let mode: ProjectionMode

    var name: String { projection.name }
    var version: UInt32 { projection.version }

    func makeFold(after checkpoint: UInt64) -> any ProjectionFolding {
        if let builtIn = projection as? any RecordViewFolding {
            return builtIn.makeViewFold(after: checkpoint)
        }
        return ProjectionFold(projection: projection, checkpoint: checkpoint)
    }
}

/// A built-in projection with a fold of its own over borrowed record views (its state changed in
/// place from the record's bytes, without copying the record out): the same states as its
/// ``Projection/apply(_:to:)`` gives, faster. `ProjectionRunner` uses it instead of the general
/// ``ProjectionFold``.
protocol RecordViewFolding {
    /// The projection's fold over consecutive records starting after global sequence `checkpoint`.
    func makeViewFold(after checkpoint: UInt64) -> any ProjectionFolding
}

/// The general fold: the projection's own `key(for:)` and `apply(_:to:)` on whole records.
final class ProjectionFold<P: Projection>: ProjectionFolding {
    private let projection: P
    private(set) var checkpoint: UInt64
    private var states: FoldStates<P.State>

    init(projection: P, checkpoint: UInt64) {
        self.projection = projection
        self.checkpoint = checkpoint
        self.states = FoldStates(name: projection.name)
    }

    func apply(_ view: RecordView, in transaction: StoreReadTransaction) throws {
        try apply(view.record(), in: transaction)
    }

    func apply(_ record: TransitionRecord, in transaction: StoreReadTransaction) throws {
        guard let key = projection.key(for: record) else {
            checkpoint = record.sequence
            return
        }
        var utf8Key = key
        let index = try utf8Key.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            if let index = states.index(of: bytes) { return index }
            do {
                return try states.load(key, bytes: bytes, from: transaction, decode: projection.decode)
            } catch let error as ProjectionError {
                // A key too long or a stored state unreadable: this record is where it stops.
                throw ProjectionError.applyFailed(
                    projection: states.name, sequence: record.sequence, session: record.session,
                    cause: ErrorCause(error))
            }
        }
        do {
            try projection.apply(record, to: &states.states[index])
        } catch {
            throw ProjectionError.applyFailed(
                projection: states.name, sequence: record.sequence, session: record.session,
                cause: ErrorCause(error))
        }
        states.markDirty(index)
        checkpoint = record.sequence
    }

    func write(to transaction: StoreWriteTransaction) throws {
        try states.write(to: transaction, encode: projection.encode)
    }
}

extension Projection {
    /// This projection behind a type-erased runner.
    func runner(mode: ProjectionMode) -> any ProjectionRunning {
        ProjectionRunner(projection: self, mode: mode)
    }
}
