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
    /// read from `reader`. Every record moves the navigation stack, shown or not; `coder`
    /// decodes the state data its entries carry.
    ///
    /// - Throws: the reader's errors, the coder's when a record's state data does not decode.
    public static func rows(
        of session: SessionID, in reader: any TransitionLogReader, filter: HistoryFilter = .all,
        limit: Int = .max, coder: any PayloadCoder
    ) throws -> [HistoryRow] {
        var rows: [HistoryRow] = []
        guard limit > 0 else { return rows }
        var stack = NavigationStack()
        var next: UInt64 = 1
        let last = filter.versions?.upperBound ?? .max
        let page = 512
        while next <= last {
            let records = try reader.records(of: session, fromVersion: next, limit: page)
            for record in records {
                if record.version > last { return rows }
                try stack.apply(record, coder: coder)
                guard filter.matches(record) else { continue }
                rows.append(HistoryRow(
                    version: record.version, sequence: record.sequence, time: record.timestamp.description,
                    event: record.event, source: record.source, target: record.target,
                    navigation: record.navigation.map(\.description), stack: stack.entries))
                if rows.count == limit { return rows }
            }
            guard records.count == page, let final = records.last else { break }
            next = final.version + 1
        }
        return rows
    }
}
