/// Where a record came from when its session was forked from another session's history.
public struct RecordOrigin: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The session forked from.
    public var session: SessionID
    /// The version of `session` the fork starts after.
    public var version: UInt64

    /// Creates an origin.
    public init(session: SessionID, version: UInt64) {
        self.session = session
        self.version = version
    }

    /// `session@version`.
    public var description: String { "\(session)@\(version)" }
}
