/// The error underneath a domain error (``StoreError`` and the engine's errors), kept as a typed
/// value so that code can inspect it (`cause.error as? LMDBError`, `is EncodingError`) rather
/// than parse text.
///
/// Two causes are equal when their errors have the same type and description, so the domain
/// errors that carry one stay `Hashable` (and comparable in tests) as before.
public struct ErrorCause: Error, Sendable, Hashable, CustomStringConvertible {
    /// The underlying error.
    public let error: any Error

    /// Wraps `error`.
    public init(_ error: any Error) {
        self.error = error
    }

    /// The underlying error's description (what `String(describing:)` of it said before).
    public var description: String { String(describing: error) }

    /// Whether both wrap errors of the same type with the same description.
    public static func == (lhs: ErrorCause, rhs: ErrorCause) -> Bool {
        ObjectIdentifier(type(of: lhs.error)) == ObjectIdentifier(type(of: rhs.error)) && lhs.description == rhs.description
    }

    /// Hashes the error's type and description.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type(of: error)))
        hasher.combine(description)
    }
}
