import Foundation
import RewindStore

/// A read model folded from the transition log: a state per key (usually per session), updated
/// by a pure fold of each record, stored in the store's `projections` database next to a
/// checkpoint (the last global sequence applied) in `checkpoints`.
///
/// ```swift
/// struct EventCounts: Projection {
///     var name: String { "event-counts" }
///     var version: UInt32 { 1 }
///     func key(for record: TransitionRecord) -> String? { record.machine }
///     func apply(_ record: TransitionRecord, to state: inout [String: Int]?) throws {
///         state = state ?? [:]
///         state?[record.event, default: 0] += 1
///     }
/// }
/// try engine.register(EventCounts())
/// let counts = try engine.reader(for: EventCounts()).state(forKey: "onboarding")
/// ```
///
/// Register it with ``Engine/register(_:mode:progress:)`` (or ``EngineConfiguration/projections``): it is
/// caught up from its checkpoint to the head, then (in ``ProjectionMode/inline`` mode) updated in
/// the same LMDB write transaction as every append. Change ``version`` whenever ``apply(_:to:)``
/// or the state's encoding changes: the projection is then rebuilt from the first record.
///
/// `apply` must be pure (a function of the record and the state only) so that a rebuild gives
/// exactly the bytes the inline updates gave. An error thrown by `apply` never fails an append:
/// the projection stops before that record (see ``ProjectionError/applyFailed(projection:sequence:session:cause:)``)
/// and continues from there at the next catch-up.
public protocol Projection: Sendable {
    /// The state kept per key.
    associatedtype State: Codable & Sendable & Equatable

    /// The projection's unique name within a store (its states' and checkpoint's key prefix):
    /// 1–100 bytes of UTF-8, no NUL.
    var name: String { get }

    /// The version of the fold and of the state encoding; a stored projection of another version
    /// is rebuilt from scratch.
    var version: UInt32 { get }

    /// The key of the state `record` updates, or `nil` when the record does not concern the
    /// projection (usually the session id; a per-machine aggregate uses the machine's name).
    /// At most 400 bytes of UTF-8.
    func key(for record: TransitionRecord) -> String?

    /// Folds `record` into `state` (`nil` when the key has no state yet; set it to `nil` to delete
    /// the key's state). Pure; a throw leaves the stored state as it was before `record`.
    func apply(_ record: TransitionRecord, to state: inout State?) throws

    /// Whether ``key(for:)`` is always the record's session id (or `nil`): erasing a session then
    /// deletes its state and nothing more. Otherwise (the default, `false`) erasing re-folds the
    /// states the erased records touched from the remaining log, so they equal a rebuild.
    var keysAreSessionIDs: Bool { get }

    /// Appends the stored bytes of `state` to `buffer`. Must be deterministic (equal states give
    /// equal bytes). Defaults to JSON with sorted keys.
    func encode(_ state: State, into buffer: inout [UInt8]) throws

    /// The state stored as `bytes` (written by ``encode(_:into:)``).
    func decode(_ bytes: UnsafeRawBufferPointer) throws -> State
}

extension Projection {
    /// `false`: erasing a session re-folds the states its records touched.
    public var keysAreSessionIDs: Bool { false }

    /// Encodes `state` as JSON with sorted keys (deterministic).
    public func encode(_ state: State, into buffer: inout [UInt8]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        buffer.append(contentsOf: try encoder.encode(state))
    }

    /// Decodes JSON written by the default ``encode(_:into:)``.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws -> State {
        try JSONDecoder().decode(State.self, from: Data(bytes))
    }
}

/// When a registered projection is updated.
public enum ProjectionMode: Sendable, Hashable {
    /// In the same LMDB write transaction as each append, so it is never behind the log (the
    /// default). It is caught up when registered and whenever it fell behind (after a failure).
    case inline
    /// Only by ``Engine/catchUpProjections(progress:)`` (and when registered): for read models
    /// that may lag, such as heavy analytics, at no cost to appends.
    case catchUp
}
