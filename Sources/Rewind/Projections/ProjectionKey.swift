import RewindStore

/// The key of a projection's state as ``ProjectionReader/states()`` returns it (usually a session
/// id): its text, compared, hashed and ordered by its UTF-8 bytes, as the store keys the states.
/// Two keys Swift's `String` calls equal because they are canonically equivalent ("é" as one
/// scalar, or "e" and a combining accent) are two keys, as they are two sessions.
///
/// ```swift
/// let counts = try engine.reader(for: EventCounts()).states()
/// let onboarding = counts["onboarding"]  // a string literal is a key
/// ```
public struct ProjectionKey: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The key's text.
    public let rawValue: String

    /// The key whose text is `rawValue`.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The key whose text is `value`.
    public init(stringLiteral value: String) {
        rawValue = value
    }

    /// The key's text.
    public var description: String { rawValue }

    /// Whether the two keys have the same UTF-8 bytes (not `String`'s canonical equivalence).
    public static func == (lhs: ProjectionKey, rhs: ProjectionKey) -> Bool {
        UTF8Identity.equal(lhs.rawValue, rhs.rawValue)
    }

    /// Hashes the key's UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        UTF8Identity.hash(rawValue, into: &hasher)
    }

    /// Orders keys by their UTF-8 bytes, as the store does.
    public static func < (lhs: ProjectionKey, rhs: ProjectionKey) -> Bool {
        UTF8Identity.precedes(lhs.rawValue, rhs.rawValue)
    }
}
