import Foundation

/// One session of one device store as the fleet server's `GET /v1/sessions` lists it.
public struct FleetSessionSummary: Codable, Sendable, Hashable {
    /// The device store holding it.
    public var storeID: UUID
    /// The session's id.
    public var sessionID: String
    /// Its machine.
    public var machine: String
    /// The hash of the definition its head record was written with.
    public var definition: String
    /// Its head version.
    public var headVersion: Int64
    /// The global sequence of its head record in its store.
    public var headSequence: Int64
    /// How many of its records the server holds.
    public var recordCount: Int64
    /// When its first record was written, in microseconds since 1970.
    public var firstRecordedAtMicroseconds: Int64
    /// When its last record was written, in microseconds since 1970.
    public var lastRecordedAtMicroseconds: Int64
    /// The event of its head record.
    public var lastEvent: String
    /// The active configuration, from the screen-flow projection (`nil` until it has folded the
    /// session).
    public var configuration: [String]?

    /// A summary from its parts.
    public init(
        storeID: UUID, sessionID: String, machine: String, definition: String, headVersion: Int64,
        headSequence: Int64, recordCount: Int64, firstRecordedAtMicroseconds: Int64,
        lastRecordedAtMicroseconds: Int64, lastEvent: String, configuration: [String]?
    ) {
        self.storeID = storeID
        self.sessionID = sessionID
        self.machine = machine
        self.definition = definition
        self.headVersion = headVersion
        self.headSequence = headSequence
        self.recordCount = recordCount
        self.firstRecordedAtMicroseconds = firstRecordedAtMicroseconds
        self.lastRecordedAtMicroseconds = lastRecordedAtMicroseconds
        self.lastEvent = lastEvent
        self.configuration = configuration
    }
}

/// A page of the fleet server's `GET /v1/sessions`: the app's sessions across its device stores.
public struct FleetSessionList: Codable, Sendable, Hashable {
    /// The page's sessions.
    public var sessions: [FleetSessionSummary]
    /// The `cursor` of the next page, or `nil` on the last.
    public var nextCursor: String?

    /// A page from its parts.
    public init(sessions: [FleetSessionSummary], nextCursor: String?) {
        self.sessions = sessions
        self.nextCursor = nextCursor
    }
}
