import Rewind
import RewindStore

/// A session as `rewind sessions --json` lists it and the fleet server's store session list
/// answers it: its machine, head version, current states, last update and fork origin.
public struct SessionListing: Codable, Sendable, Hashable {
    /// The session id.
    public var session: String
    /// The machine of its last record.
    public var machine: String
    /// Its head version.
    public var version: UInt64
    /// Its configuration at the head (the target of its last record).
    public var states: [String]
    /// When its last record was written (ISO 8601).
    public var updated: String
    /// `session@version` it was forked from, when it is a fork.
    public var origin: String?
    /// The version its history begins at when it was trimmed (its base); absent otherwise.
    public var historyBeginsAt: UInt64?

    /// The listing of the session `info` describes, whose head record is `head`.
    public init(_ info: SessionInfo, head: TransitionRecord?) {
        session = info.session.rawValue
        machine = info.machine
        version = info.headVersion
        states = head?.target ?? []
        updated = info.updated.description
        origin = info.origin?.description
        historyBeginsAt = info.baseVersion
    }

    /// The listing of `session` read from `reader` (its info and head record), or `nil` when the
    /// log holds no record of it.
    public static func read(_ session: SessionID, from reader: any TransitionLogReader) throws -> SessionListing? {
        guard let info = try reader.sessionInfo(for: session) else { return nil }
        return SessionListing(info, head: try reader.records(fromSequence: info.headSequence, limit: 1).first)
    }
}
