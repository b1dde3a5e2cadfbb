/// A ``RecordedSession`` that cannot be played or written: which session, which version, and why.
public struct RecordedSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The session's id.
    public var session: String
    /// The version at fault (`nil` for the session as a whole).
    public var version: UInt64?
    /// What is wrong.
    public var reason: String

    /// Creates the error.
    public init(session: String, version: UInt64?, reason: String) {
        self.session = session
        self.version = version
        self.reason = reason
    }

    /// `recorded session 'user-42' version 3: its payload is not JSON: …`.
    public var description: String {
        "recorded session '\(DisplayText.excerpt(session))'" + (version.map { " version \($0)" } ?? "") + ": \(reason)"
    }
}
