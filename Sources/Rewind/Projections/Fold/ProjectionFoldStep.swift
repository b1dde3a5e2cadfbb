import RewindStore

/// How a projection's fold changes one state by one record: the part of a fold that differs
/// between projections. Everything else — reading each key's stored state once, the key checks,
/// the typed errors naming the record, the checkpoint, writing what changed — is the one driver's,
/// ``ProjectionFold``.
protocol ProjectionFoldStep {
    /// The state kept per key.
    associatedtype State
    /// The projection's name.
    var name: String { get }
    /// The key of the state `record` changes, or `nil` when it concerns the projection not.
    func key(for record: TransitionRecord) -> String?
    /// Folds `record` into `state` (a throw spoils the fold).
    mutating func apply(_ record: TransitionRecord, to state: inout State?) throws
    /// The key of the state the record `view` shows changes, or ``ViewKey/needsRecord`` when this
    /// step folds whole records only (the driver copies the record out).
    func key(of view: RecordView) -> ViewKey
    /// Folds the record `view` shows into `state`; called only after ``key(of:)`` gave a key.
    mutating func apply(_ view: RecordView, to state: inout State?) throws
    /// The stored bytes of `state`.
    func encode(_ state: State, into buffer: inout [UInt8]) throws
    /// The state stored as `bytes`.
    func decode(_ bytes: UnsafeRawBufferPointer) throws -> State
}

/// The key a record view's state is kept under.
enum ViewKey {
    /// The key's UTF-8, borrowed from the view.
    case key(UnsafeRawBufferPointer)
    /// The record concerns the projection not.
    case none
    /// The step reads whole records: copy the record out of the view.
    case needsRecord
}

/// Every projection's step: its own ``Projection/key(for:)`` and ``Projection/apply(_:to:)`` on
/// whole records.
struct RecordFoldStep<P: Projection>: ProjectionFoldStep {
    let projection: P

    var name: String { projection.name }
    func key(for record: TransitionRecord) -> String? { projection.key(for: record) }
    func apply(_ record: TransitionRecord, to state: inout P.State?) throws { try projection.apply(record, to: &state) }
    func key(of view: RecordView) -> ViewKey { .needsRecord }
    func apply(_ view: RecordView, to state: inout P.State?) throws { try projection.apply(view.record(), to: &state) }
    func encode(_ state: P.State, into buffer: inout [UInt8]) throws { try projection.encode(state, into: &buffer) }
    func decode(_ bytes: UnsafeRawBufferPointer) throws -> P.State { try projection.decode(bytes) }
}
