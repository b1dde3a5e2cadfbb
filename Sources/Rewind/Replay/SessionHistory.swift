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
        if let states, !record.source.contains(where: states.contains), !record.target.contains(where: states.contains)
        {
            return false
        }
        return true
    }
}

extension HistoryFilter {
    /// The one walk behind every history listing (``LogReplay/history(of:filter:limit:)`` and
    /// `HistoryRow.rows(of:in:filter:limit:coder:)` in RewindWire): the records of `session` in `reader`,
    /// oldest first, from version `first` through the filter's last version, each handed to
    /// `visit` with whether it passes the filter, until `limit` have passed. A listing that
    /// rebuilds something from every record (the navigation stack) starts at version 1 and uses
    /// the records that do not pass too.
    ///
    /// - Throws: the reader's errors, what `visit` throws.
    package func walk(
        _ session: SessionID, in reader: any TransitionLogReader, from first: UInt64, limit: Int,
        _ visit: (_ record: TransitionRecord, _ passes: Bool) throws -> Void
    ) throws {
        guard limit > 0 else { return }
        var passed = 0
        let last = versions?.upperBound
        try SessionSnapshot.records(of: session, through: last, in: reader)(first) { record in
            if let last, record.version > last { return false }
            let passes = matches(record)
            try visit(record, passes)
            if passes { passed += 1 }
            return passed < limit
        }
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
            _ = try reader.requireSessionInfo(for: session)
            var entries: [HistoryEntry] = []
            try filter.walk(session, in: reader, from: filter.versions?.lowerBound ?? 1, limit: limit) {
                record, passes in
                if passes { entries.append(HistoryEntry(record)) }
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
