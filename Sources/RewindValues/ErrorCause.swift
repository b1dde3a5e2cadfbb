/// The error underneath a domain error (the store's, the machine's and the engine's errors), kept
/// as a typed value so that code can inspect it (`cause.error as? LMDBError`,
/// `cause.error is EncodingError`, `cause.error as? MyAppError`) rather than parse text.
///
/// It lives in the lowest layer so that every layer above can keep the causes it wraps:
/// ``MachineError``'s `actionFailed` carries the error an app's action threw, the store's errors
/// the file system's, the uploader's the store's.
///
/// Two causes are equal when their errors are of the same type and, for an `Equatable` error, equal
/// by its own `==` (an ``ErrorCause`` wrapping `LMDBError.mapFull` equals another wrapping it, and
/// differs from one wrapping another `LMDBError` whatever their texts). Errors that are not
/// `Equatable` (`EncodingError`, most `NSError`s, an app's plain error structs) have no equality of
/// their own: for them, the same type with the same description is the best approximation, and
/// that is what is compared. The domain errors that carry a cause stay `Hashable` this way.
public struct ErrorCause: Error, Sendable, Hashable, CustomStringConvertible {
    /// The underlying error.
    public let error: any Error

    /// Wraps `error`. An ``ErrorCause`` given an ``ErrorCause`` keeps the inner error (causes do
    /// not nest).
    public init(_ error: any Error) {
        self.error = (error as? ErrorCause)?.error ?? error
    }

    /// The underlying error's description.
    public var description: String { String(describing: error) }

    /// Whether both wrap errors of the same type that are equal: by the error's own `==` when it
    /// is `Equatable`, else by their descriptions.
    public static func == (lhs: ErrorCause, rhs: ErrorCause) -> Bool {
        guard ObjectIdentifier(type(of: lhs.error)) == ObjectIdentifier(type(of: rhs.error)) else { return false }
        // Through `Any`: a cast straight from `any Error` counts NSError bridging as a conformance.
        if let equatable = (lhs.error as Any) as? any Equatable {
            return equatable.isEqual(to: rhs.error)
        }
        return lhs.description == rhs.description
    }

    /// Hashes the error's type, and the error itself when it is `Hashable` (else its description).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type(of: error)))
        let value = error as Any
        if let hashable = value as? any Hashable {
            hasher.combine(AnyHashable(hashable))
        } else if !(value is any Equatable) {
            hasher.combine(description)
        }
    }
}

extension Equatable {
    /// `self == other` when `other` is of the same type (opens the existential for ``ErrorCause``).
    fileprivate func isEqual(to other: any Error) -> Bool {
        guard let other = (other as Any) as? Self else { return false }
        return self == other
    }
}
