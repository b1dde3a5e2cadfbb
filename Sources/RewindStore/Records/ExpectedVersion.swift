/// The version a session must be at for an append to go ahead (EventStoreDB's semantics).
public enum ExpectedVersion: Sendable, Hashable, CustomStringConvertible {
    /// The session's head version must be exactly this (`.exact(0)` means it must not exist).
    case exact(UInt64)
    /// The session must not exist yet.
    case noStream
    /// No check.
    case any

    /// Whether a session whose head is `actual` (0: no session) satisfies the expectation.
    public func isSatisfied(byHead actual: UInt64) -> Bool {
        switch self {
        case .exact(let version): return version == actual
        case .noStream: return actual == 0
        case .any: return true
        }
    }

    /// `exact(3)`, `noStream` or `any`.
    public var description: String {
        switch self {
        case .exact(let version): return "exact(\(version))"
        case .noStream: return "noStream"
        case .any: return "any"
        }
    }
}
