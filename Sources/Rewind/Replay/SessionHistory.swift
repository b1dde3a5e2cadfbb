import RewindMachine
import RewindStore

/// One line of a session's history: a record without its payload bytes.
public struct HistoryEntry: Sendable, Hashable {
    /// The session version.
    public var version: UInt64
    /// The global sequence of the record.
    public var sequence: UInt64
    /// When the step happened.
    public var timestamp: Timestamp
    /// The event.
    public var event: String
    /// The active configuration before.
    public var source: [String]
    /// The active configuration after.
    public var target: [String]
    /// What the step did to the navigation stack.
    public var navigation: [NavigationOperation]
    /// Where the record came from, when it is the first record of a fork.
    public var origin: RecordOrigin?

    /// The entry of `record`.
    public init(_ record: TransitionRecord) {
        version = record.version
        sequence = record.sequence
        timestamp = record.timestamp
        event = record.event
        source = record.source
        target = record.target
        navigation = record.navigation
        origin = record.origin
    }
}

/// Which records a history listing keeps. Every condition set must hold.
public struct HistoryFilter: Sendable, Hashable {
    /// Keep records of these events only (`nil`: any event).
    public var events: Set<String>?
    /// Keep records whose source or target configuration contains one of these states (`nil`:
    /// any). Configurations hold every active state, so a compound state matches the steps
    /// inside it too.
    public var states: Set<String>?
    /// Keep records in this version range (`nil`: all).
    public var versions: ClosedRange<UInt64>?

    /// A filter keeping everything.
    public static let all = HistoryFilter()

    /// Creates a filter.
    public init(events: Set<String>? = nil, states: Set<String>? = nil, versions: ClosedRange<UInt64>? = nil) {
        self.events = events
        self.states = states
        self.versions = versions
    }

    /// Whether `record` passes.
    public func matches(_ record: TransitionRecord) -> Bool {
        if let versions, !versions.contains(record.version) { return false }
        if let events, !events.contains(record.event) { return false }
        if let states, !record.source.contains(where: states.contains), !record.target.contains(where: states.contains) {
            return false
        }
        return true
    }
}

extension LogReplay {
    /// The history of `session`, oldest first: version, time, event, source → target and
    /// navigation operations of each record that passes `filter`, at most `limit` entries.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, the log's errors.
    public func history(
        of session: SessionID, filter: HistoryFilter = .all, limit: Int = .max
    ) throws -> [HistoryEntry] {
        try log.readLog { reader in
            guard try reader.sessionInfo(for: session) != nil else { throw EngineError.unknownSession(session) }
            var entries: [HistoryEntry] = []
            guard limit > 0 else { return entries }
            let records = SessionSnapshot.records(
                of: session, through: filter.versions?.upperBound, in: reader)
            try records(filter.versions?.lowerBound ?? 1) { record in
                if let versions = filter.versions, record.version > versions.upperBound { return false }
                if filter.matches(record) { entries.append(HistoryEntry(record)) }
                return entries.count < limit
            }
            return entries
        }
    }
}

extension Engine {
    /// The history of `session`, oldest first: version, time, event, source → target and
    /// navigation operations of each record that passes `filter`, at most `limit` entries (see
    /// ``LogReplay/history(of:filter:limit:)``).
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, the store's errors.
    public func history(
        of session: SessionID, filter: HistoryFilter = .all, limit: Int = .max
    ) throws -> [HistoryEntry] {
        try logReplay().history(of: session, filter: filter, limit: limit)
    }
}
