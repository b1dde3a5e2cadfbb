import Foundation
import RewindMachine
@_spi(Internals) import RewindStore
@_spi(Internals) import RewindValues

extension SessionArchive {
    /// The values of one record line that ``rewritten(_:changingBase:changing:)`` lets a caller change.
    public struct RecordValues: Sendable, Hashable {
        /// The record's version (read only: a rewrite keeps the versions).
        public let version: UInt64
        /// The record's event (read only).
        public let event: String
        /// The event's payload, `nil` when the record has none.
        public var payload: JSONValue?
        /// The data of the states the step entered (`{"state": value, …}`), `nil` when none.
        public var stateData: JSONValue?
    }

    /// `archive` with each record's payload and state data passed through `change` and, in a
    /// trimmed session's archive (format version 3), its base snapshot through `changeBase`,
    /// written again by the archive writer: every line's checksum and the trailer are computed
    /// anew, so the result validates and imports like an export (format version ``formatVersion``,
    /// or ``trimmedFormatVersion`` with a base).
    ///
    /// Used to redact an archive before it leaves the machine (the browser viewer's bug report).
    /// The archive is checked first, as ``validate(_:as:)`` does. The base keeps its version
    /// (`changeBase` changes its values: context, state data, navigation, queued events).
    ///
    /// - Throws: ``SessionArchiveError`` for an archive that does not validate;
    ///   ``SessionArchiveError/malformedLine(line:reason:)`` (line 1) for a trimmed session's
    ///   archive when `changeBase` is `nil` (its base state holds values `change` does not see:
    ///   kept, they would leave the machine unchanged);
    ///   ``SessionArchiveError/malformedLine(line:reason:)`` for a record whose payload or state
    ///   data is not JSON (written by a custom payload coder); what `change` or `changeBase` throws.
    public static func rewritten(
        _ archive: Data, changingBase changeBase: ((inout SessionSnapshot) throws -> Void)? = nil,
        changing change: (inout RecordValues) throws -> Void
    ) throws -> Data {
        let bytes = Array(archive)
        let contents = try parse(bytes)
        var lines: [Range<Int>] = []
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            lines.append(start..<index)
            start = index + 1
        }
        var header = contents.header
        header.formatVersion = formatVersion
        if let base = contents.base {
            // A trimmed session's base state holds values `change` does not see: kept, they would
            // leave the machine unchanged.
            guard let changeBase else {
                throw SessionArchiveError.malformedLine(
                    line: 1,
                    reason: "it is a trimmed session's archive (its history begins at version "
                        + "\(ReplayError.grouped(base.version))): its base state holds values the record changes do not see, so it is not rewritten without a change of the base"
                )
            }
            var changed = base
            try changeBase(&changed)
            changed.version = base.version
            header.base = Header.Base(version: base.version, state: changed.jsonValue)
            header.formatVersion = trimmedFormatVersion
        }
        var writer = try Writer(header)
        var memory = RecordLineMemory()
        for number in 2..<(Int(clamping: header.records) + 2) {
            var record = try Self.record(
                ofLine: bytes[lines[number - 1]], number: number, formatVersion: contents.header.formatVersion,
                remembering: &memory)
            func json(_ bytes: [UInt8], _ what: String) throws -> JSONValue? {
                guard !bytes.isEmpty else { return nil }
                do {
                    return try JSONValue(jsonBytes: bytes)
                } catch {
                    throw SessionArchiveError.malformedLine(
                        line: number,
                        reason: "its \(what) is not JSON (a custom payload coder?), so it cannot be rewritten")
                }
            }
            var values = RecordValues(
                version: record.version, event: record.event,
                payload: try json(record.payload, "payload"), stateData: try json(record.stateData, "state data"))
            try change(&values)
            record.payload = try values.payload?.jsonBytes() ?? []
            record.stateData = try values.stateData?.jsonBytes() ?? []
            // A recorded state holds values the change did not see: the rewritten archive goes
            // without it (a replay of that record then re-runs it).
            record.recordedState = nil
            try writer.append(record)
        }
        try writer.finish()
        return Data(writer.take())
    }
}
