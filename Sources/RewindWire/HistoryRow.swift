import Rewind
import RewindMachine
import RewindStore

/// One version of a session as `rewind history --json` prints it and the fleet server's
/// `…/history` answers it: time, event, source → target, navigation operations and the
/// navigation stack after it (entries with their data, rebuilt from the records as the
/// navigation projection does).
public struct HistoryRow: Codable, Sendable, Hashable {
    /// The session version.
    public var version: UInt64
    /// The record's global sequence.
    public var sequence: UInt64
    /// When it was written (ISO 8601).
    public var time: String
    /// The event.
    public var event: String
    /// The configuration before.
    public var source: [String]
    /// The configuration after.
    public var target: [String]
    /// What the step did to the navigation stack, as text.
    public var navigation: [String]
    /// The navigation stack after the version, root first.
    public var stack: [NavigationEntry]

    /// The rows of the records of `session` that pass `filter`, oldest first, at most `limit`,
    /// read from `reader`: the entries of ``LogReplay/history(of:filter:limit:)`` (the same walk
    /// of the records), each with the navigation stack after it. Every record moves the
    /// navigation stack, shown or not; `coder` decodes the state data its entries carry. A trimmed
    /// session's rows begin at its base version, the stack at its base snapshot's.
    ///
    /// - Throws: the reader's errors, the coder's when a record's state data does not decode.
    public static func rows(
        of session: SessionID, in reader: any TransitionLogReader, filter: HistoryFilter = .all,
        limit: Int = .max, coder: any PayloadCoder
    ) throws -> [HistoryRow] {
        var rows: [HistoryRow] = []
        var stack = ScreenStack()
        // A trimmed session's rows begin at its base, whose stack its base snapshot holds.
        let base = try reader.sessionInfo(for: session)?.baseVersion
        if let base { stack = try SessionSnapshot.base(of: session, at: base, in: reader).navigation }
        try filter.walk(session, in: reader, from: base ?? 1, limit: limit) { record, passes in
            if record.version > base ?? 0 { try stack.apply(record, coder: coder) }
            if passes { rows.append(HistoryRow(HistoryEntry(record), stack: stack.entries)) }
        }
        return rows
    }
}

extension HistoryRow {
    /// The row of `entry`, with the navigation stack after it.
    init(_ entry: HistoryEntry, stack: [NavigationEntry]) {
        self.init(
            version: entry.version, sequence: entry.sequence, time: entry.timestamp.description, event: entry.event,
            source: entry.source, target: entry.target, navigation: entry.navigation.map(\.description), stack: stack)
    }
}
