import Foundation
import RewindMachine
@_spi(Internals) import RewindStore
@_spi(Internals) import RewindValues

/// The self-contained file a session is exported to: NDJSON, one JSON object per line.
///
/// ```
/// {"crc32c":"…","body":{"definitions":[…],"format":"rewind.session","formatVersion":2,"machine":"kanji","records":4,"session":"user-42"}}
/// {"crc32c":"…","body":{"definition":"…","event":"rewind.start","machine":"kanji","navigation":[{"setRoot":"all"}],…,"version":1}}
/// {"crc32c":"…","body":{…,"event":"select","navigation":[{"push":"detail"}],"payload":{"character":"日"},"stateData":{…},"version":2}}
/// …one line per record, versions 1…N…
/// {"crc32c":"…","body":{"checksum":"…","end":"rewind.session","records":4}}
/// ```
///
/// Every line is an envelope `{"crc32c":"<8 hex digits>","body":<JSON>}` whose checksum is the
/// CRC-32C of the body's exact bytes. The header (line 1) names the session and its machine and
/// carries the machine's definitions (the JSON interchange documents of every definition the
/// records were written under, with their content versions); each record line carries all the
/// record's fields (since format version 2 the payload and the state data as JSON values and the
/// navigation operations as `"pop"` or `{"push":"detail"}`; format version 1 wrote them in
/// base64 and Swift's synthesized `{"push":{"_0":"detail"}}`, and is still read); the trailer
/// repeats the record
/// count and holds the CRC-32C of all the lines before it, newlines included. An import checks
/// everything (checksums, format, versions without gaps, definitions against their content
/// versions, the trailer) before writing anything.
///
/// A session whose history was trimmed (``Engine/trimHistory(of:before:)``) is written in format
/// version 3: its header's `base` holds the base version and the session's state there (the
/// stored snapshot, as JSON: `"base":{"state":{…},"version":1200}`), and its record lines run
/// from the base version to the head. A whole session is still written in format version 2, so
/// older readers keep reading it; they refuse a format 3 archive as an unsupported format.
public enum SessionArchive {
    /// The header's `format`.
    public static let format = "rewind.session"
    /// The format version this code writes for a session that keeps its whole history.
    public static let formatVersion = 2
    /// The format version this code writes for a trimmed session (its header has a `base`).
    public static let trimmedFormatVersion = 3
    /// The format versions this code reads: 1 (payloads and data in base64), 2 and 3 (2 with a
    /// trimmed session's base).
    public static let readableFormatVersions: ClosedRange<Int> = 1...3

    // MARK: Line bodies

    /// The header line's body; read by `init(jsonBody:)`.
    struct Header: Encodable {
        struct Definition: Encodable {
            var version: String
            /// The definition's JSON interchange document, its numbers exact (``JSONNumber``).
            var document: JSONValue
        }

        /// A trimmed session's base (format version 3): its records begin at `version`, whose
        /// state is `state` (a ``SessionSnapshot`` as JSON).
        struct Base: Encodable {
            var version: UInt64
            var state: JSONValue
        }

        var format: String
        var formatVersion: Int
        var session: String
        var machine: String
        var definitions: [Definition]
        var records: UInt64
        /// Written only for a trimmed session (format version 3).
        var base: Base?
    }

    /// A record line. Format version 2 writes the payload and state data bytes as the JSON
    /// values they hold (`payload`, `stateData`; absent when there are no bytes) when the value
    /// writes back to exactly those bytes, else in base64 (`payloadBase64`, `stateDataBase64`),
    /// so an import stores the very bytes that were exported; navigation operations are
    /// ``ArchiveNavigation``. Format version 1 (read only) had base64 strings in `payload` and
    /// `stateData` and synthesized navigation operations.
    struct Record {
        var version: UInt64
        var sequence: UInt64
        var timestamp: Int64
        var machine: String
        var definition: String
        var event: String
        var source: [String]
        var target: [String]
        var navigation: [NavigationOperation]
        var payload: [UInt8]
        var stateData: [UInt8]
        var origin: RecordOrigin?
        /// ``TransitionRecord/redacted``; written only when set (`"redacted":true`).
        var redacted: Bool
        /// The state a redacted record recorded (the snapshot written with it, as its JSON), when
        /// one was: replay takes it after the record (see `StepRecording+Redaction`).
        var recordedState: JSONValue?

        /// The line of `record`, with the state it recorded when it is a redacted record written
        /// with a snapshot of its own (`recordedState`, see `StepRecording+Redaction`).
        init(_ record: borrowing TransitionRecord, recordedState: SessionSnapshot? = nil) {
            version = record.version
            sequence = record.sequence
            timestamp = record.timestamp.microsecondsSince1970
            machine = record.machine
            definition = record.definition
            event = record.event
            source = record.source
            target = record.target
            navigation = record.navigation
            payload = record.payload
            stateData = record.stateData
            origin = record.origin
            redacted = record.redacted
            self.recordedState = recordedState?.jsonValue
        }
    }

    /// The last line's body; read by `init(jsonBody:)`.
    struct Trailer: Encodable {
        var end: String
        var records: UInt64
        var checksum: String
    }

    // MARK: Envelopes

    static let envelopeStart = Array(#"{"crc32c":""#.utf8)
    static let envelopeMiddle = Array(#"","body":"#.utf8)
    static let bodyOffset = envelopeStart.count + 8 + envelopeMiddle.count
    /// ``envelopeStart``, eight zeros where the checksum goes, ``envelopeMiddle``.
    static let envelopeHead = envelopeStart + Array("00000000".utf8) + envelopeMiddle

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value` as the 8 lowercase hex digits a checksum is written with (the trailer's, messages).
    static func hex(_ value: UInt32) -> String {
        var digits = [UInt8](repeating: 0, count: 8)
        writeHex(value, into: &digits, at: 0)
        return String(decoding: digits, as: UTF8.self)
    }

    /// Writes `value` as 8 lowercase hex digits over `bytes[offset..<offset + 8]`: the one writer
    /// of a checksum's digits (an envelope's, in place; ``hex(_:)``'s).
    static func writeHex(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        for position in 0..<8 {
            let nibble = UInt8(truncatingIfNeeded: value >> (28 - 4 * position)) & 0xF
            bytes[offset + position] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
        }
    }

    /// Whether `line` holds the bytes `expected` from its `offset`-th byte on, compared as raw
    /// bytes (`elementsEqual` walked the slice through its iterator, about 25 instructions a byte).
    private static func holds(_ expected: [UInt8], in line: ArraySlice<UInt8>, at offset: Int) -> Bool {
        line.withUnsafeBytes { line in
            expected.withUnsafeBytes { expected in
                offset + expected.count <= line.count
                    && UnsafeRawBufferPointer(rebasing: line[offset..<(offset + expected.count)]).equals(expected)
            }
        }
    }

    /// The checked body of envelope line `number` (`line` without its newline).
    static func body(of line: ArraySlice<UInt8>, number: Int) throws -> ArraySlice<UInt8> {
        guard line.count > bodyOffset, line.last == UInt8(ascii: "}"),
            holds(envelopeStart, in: line, at: 0), holds(envelopeMiddle, in: line, at: envelopeStart.count + 8)
        else {
            throw SessionArchiveError.malformedLine(
                line: number, reason: #"it is not a {"crc32c":"…","body":…} envelope"#)
        }
        let digits = line.dropFirst(envelopeStart.count).prefix(8)
        var stored: UInt32 = 0
        for digit in digits {
            // Digits and letters of either case, as `UInt32(_:radix: 16)` reads them.
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = digit - UInt8(ascii: "A") + 10
            default:
                throw SessionArchiveError.malformedLine(
                    line: number,
                    reason: "its checksum '\(String(decoding: digits, as: UTF8.self))' is not hexadecimal")
            }
            stored = stored << 4 | UInt32(value)
        }
        let body = line.dropFirst(bodyOffset).dropLast()
        let computed = body.withUnsafeBytes { CRC32C.checksum($0) }
        guard stored == computed else {
            throw SessionArchiveError.checksumMismatch(line: number, stored: stored, computed: computed)
        }
        return body
    }
}

extension LogReplay {
    /// The archive of `session` (see ``SessionArchive``): its records and the definitions of its
    /// machine they were written under, as stored beside the log
    /// (``TransitionLogReader/storedDefinitionDocument(name:version:)``).
    ///
    /// A trimmed session's archive (format version 3) holds its base snapshot and its records
    /// from the base on.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``,
    ///   ``EngineError/corruptedEntry(what:reason:cause:)`` when a trimmed session's base snapshot
    ///   is missing, ``SessionArchiveError/missingDefinition(machine:version:)``,
    ///   ``EngineError/corruptedEntry(what:reason:cause:)`` for a stored definition that is not
    ///   JSON, the log's errors.
    public func exportSession(_ session: SessionID) throws -> Data {
        try log.readLog { reader in
            let info = try reader.requireSessionInfo(for: session)
            // A trimmed session's archive begins at its base, with the state there.
            let base = try info.baseVersion.map { version in
                let snapshot = try SessionSnapshot.base(of: session, at: version, in: reader)
                guard snapshot.version == version else {
                    throw EngineError.corruptedEntry(
                        what: "the base snapshot of '\(session.excerpt)' at version \(version)",
                        reason: "the latest snapshot at or before the base is of version \(snapshot.version)")
                }
                return snapshot
            }
            // The header comes first and lists the definitions the records name: the records'
            // lines are written first, then the header, then the lines after it.
            var lines = SessionArchive.RecordLines(
                expecting: info.headVersion - min(info.headVersion, info.firstVersion - 1))
            if let store = reader as? StoreReadTransaction {
                // A device's store: each line written from the stored record in place.
                try store.forEachRecordView(of: session, from: info.firstVersion) { view in
                    guard view.redacted else {
                        try lines.append(view)
                        return .next
                    }
                    let record = view.record()
                    try lines.append(record, recordedState: StepRecording.snapshot(writtenWith: record, in: reader))
                    return .next
                }
            } else {
                try SessionSnapshot.records(of: session, in: reader)(info.firstVersion) { record in
                    try lines.append(record, recordedState: StepRecording.snapshot(writtenWith: record, in: reader))
                    return true
                }
            }
            var writer = try SessionArchive.Writer(
                session: session, machine: info.machine,
                definitions: try SessionArchive.Writer.definitionVersions(lines.definitionChanges).map { version in
                    try SessionArchive.Writer.definition(
                        reader.storedDefinitionDocument(name: info.machine, version: version), machine: info.machine,
                        version: version)
                },
                records: lines.count, base: base)
            return try writer.archive(appending: lines)
        }
    }
}

extension Engine {
    /// The archive of `session` (see ``SessionArchive`` and ``LogReplay/exportSession(_:)``): its
    /// records and the definitions of its machine they were written under (a trimmed session's
    /// from its base, with its base snapshot).
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``,
    ///   ``SessionArchiveError/missingDefinition(machine:version:)``, the store's errors.
    public func exportSession(_ session: SessionID) throws -> Data {
        try logReplay().exportSession(session)
    }

    /// Writes the archive of `session` to the file at `url` (replacing it).
    ///
    /// - Throws: the errors of ``exportSession(_:)``, file errors.
    public func exportSession(_ session: SessionID, to url: URL) throws {
        try exportSession(session).write(to: url, options: .atomic)
    }
}
