import Foundation
import RewindBaseTestSupport
@_spi(Internals) import RewindStore
import Testing

@testable import Rewind

/// The record line's hand-written JSON (`SessionArchive.Record.writeJSON(into:)`) writes the bytes
/// `JSONEncoder` wrote for archives before it (`.sortedKeys`, `.withoutEscapingSlashes`), so
/// archives exported before and after compare byte for byte. `ReferenceLine` below is that earlier
/// encoding, kept here as the oracle.
@Suite struct SessionArchiveRecordJSONTests {
    /// The record line as the earlier code encoded it: synthesized order, sorted by the encoder.
    private struct ReferenceLine: Encodable {
        var record: SessionArchive.Record

        private enum Key: String, CodingKey {
            case version, sequence, timestamp, machine, definition, event, source, target, navigation
            case payload, stateData, origin, payloadBase64, stateDataBase64, redacted, recordedState
        }

        private struct Operation: Encodable {
            var operation: NavigationOperation
            func encode(to encoder: any Encoder) throws {
                let (name, screen): (String, String?) =
                    switch operation {
                    case .none: ("none", nil)
                    case .pop: ("pop", nil)
                    case .popToRoot: ("popToRoot", nil)
                    case .push(let screen): ("push", screen)
                    case .popTo(let screen): ("popTo", screen)
                    case .replace(let screen): ("replace", screen)
                    case .setRoot(let screen): ("setRoot", screen)
                    }
                if let screen {
                    var container = encoder.singleValueContainer()
                    try container.encode([name: screen])
                } else {
                    var container = encoder.singleValueContainer()
                    try container.encode(name)
                }
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(record.version, forKey: .version)
            try container.encode(record.sequence, forKey: .sequence)
            try container.encode(record.timestamp, forKey: .timestamp)
            try container.encode(record.machine, forKey: .machine)
            try container.encode(record.definition, forKey: .definition)
            try container.encode(record.event, forKey: .event)
            try container.encode(record.source, forKey: .source)
            try container.encode(record.target, forKey: .target)
            try container.encode(record.navigation.map(Operation.init), forKey: .navigation)
            try container.encodeIfPresent(record.origin, forKey: .origin)
            if record.redacted { try container.encode(true, forKey: .redacted) }
            try container.encodeIfPresent(record.recordedState, forKey: .recordedState)
            try Self.encode(record.payload, into: &container, json: .payload, base64: .payloadBase64)
            try Self.encode(record.stateData, into: &container, json: .stateData, base64: .stateDataBase64)
        }

        private static func encode(
            _ bytes: [UInt8], into container: inout KeyedEncodingContainer<Key>, json: Key, base64: Key
        ) throws {
            guard !bytes.isEmpty else { return }
            if let value = try? JSONValue(jsonBytes: bytes), (try? value.jsonBytes()) == bytes {
                try container.encode(value, forKey: json)
            } else {
                try container.encode(Data(bytes).base64EncodedString(), forKey: base64)
            }
        }
    }

    private static let reference: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Characters every escape rule of a JSON string meets: quotes, backslashes, slashes, control
    /// characters, DEL, line separators, CJK and emoji.
    private static let alphabet: [String] = [
        "a", "Z", "0", " ", "/", "\\", "\"", "\u{01}", "\u{08}", "\u{0C}", "\n", "\r", "\t", "\u{1F}", "\u{7F}",
        "\u{2028}", "é", "日", "本", "👩‍👩‍👧", "\u{FEFF}", "{", "}", ",", ":",
    ]

    private static func text(_ random: inout SeededRandom, length: Int = 12) -> String {
        (0..<Int.random(in: 0...length, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "" }
            .joined()
    }

    /// Numbers held as integers, unsigned integers and doubles (`JSONEncoder` writes each of them
    /// as the canonical writer does; decimal text is checked apart, below).
    private static let numbers: [JSONNumber] = [
        0, -1, 42, JSONNumber(Int64.min), JSONNumber(Int64.max),
        JSONNumber(UInt64.max), JSONNumber(0.1), JSONNumber(-0.0), JSONNumber(12.5), JSONNumber(5e-324),
        JSONNumber(-3e-7), JSONNumber(9_007_199_254_740_993.0), JSONNumber(2.5e-300),
    ]

    private static func value(_ random: inout SeededRandom, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<(depth < 3 ? 7 : 4), using: &random) {
        case 0: return .null
        case 1: return .bool(random.chance(0.5))
        case 2: return .number(numbers.randomElement(using: &random) ?? 0)
        case 3: return .string(text(&random))
        case 4:
            return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in value(&random, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                members[text(&random, length: 4)] = value(&random, depth: depth + 1)
            }
            return .object(members)
        }
    }

    /// Payload or state data bytes: none, a value's canonical text, `null`, or bytes that are not
    /// canonical JSON (base64).
    private static func bytes(_ random: inout SeededRandom) throws -> [UInt8] {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return []
        case 1: return Array("null".utf8)
        case 2: return Array(#"{ "spaced": 1 }"#.utf8)
        case 3:
            return (0..<Int.random(in: 1...20, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        default: return try value(&random).jsonBytes()
        }
    }

    private static func operation(_ random: inout SeededRandom) -> NavigationOperation {
        let screen = text(&random, length: 6)
        return [.none, .pop, .popToRoot, .push(screen), .popTo(screen), .replace(screen), .setRoot(screen)]
            .randomElement(using: &random) ?? .none
    }

    static func transitionRecord(_ random: inout SeededRandom) throws -> TransitionRecord {
        let origin =
            random.chance(0.3)
            ? RecordOrigin(session: try SessionID("from/\(random.next())\u{1}"), version: random.next()) : nil
        return TransitionRecord(
            sequence: random.next() >> UInt64.random(in: 0...63, using: &random), session: "s",
            version: random.next() >> UInt64.random(in: 0...63, using: &random),
            timestamp: Timestamp(microsecondsSince1970: Int64.random(in: Int64.min...Int64.max, using: &random)),
            machine: text(&random), definition: text(&random), event: text(&random),
            source: (0..<Int.random(in: 0...3, using: &random)).map { _ in text(&random) },
            target: (0..<Int.random(in: 0...3, using: &random)).map { _ in text(&random) },
            navigation: (0..<Int.random(in: 0...3, using: &random)).map { _ in operation(&random) },
            payload: try bytes(&random), stateData: try bytes(&random), origin: origin,
            redacted: random.chance(0.3))
    }

    static func record(_ random: inout SeededRandom) throws -> SessionArchive.Record {
        var record = SessionArchive.Record(try transitionRecord(&random))
        if random.chance(0.3) { record.recordedState = value(&random) }
        return record
    }

    /// A device's export writes each line from the stored record read in place (`RecordView`):
    /// the same bytes as the line of the record's values, for every field and escape.
    @Test func aStoredRecordReadInPlaceWritesTheLineOfItsValues() throws {
        var random = SeededRandom(seed: 0x5E55_1012)
        var room: [UInt8] = []
        for index in 0..<3_000 {
            var record = try Self.transitionRecord(&random)
            record.version = max(record.version, 1)
            let stored = RecordCodec.encode(record)
            var fromView: [UInt8] = []
            try stored.withUnsafeBytes { bytes in
                let view = try RecordView(bytes, sequence: record.sequence)
                try view.writeLineJSON(recordedState: nil, into: &fromView, room: &room)
            }
            var fromValues: [UInt8] = []
            try SessionArchive.Record(record).writeJSON(into: &fromValues)
            #expect(
                fromView == fromValues,
                "record \(index):\n\(String(decoding: fromView, as: UTF8.self))\n\(String(decoding: fromValues, as: UTF8.self))"
            )
            if fromView != fromValues { return }
        }
    }

    @Test func recordLinesAreTheBytesJSONEncoderWrote() throws {
        var random = SeededRandom(seed: 0x5E55_1011)
        for index in 0..<3_000 {
            let record = try Self.record(&random)
            var written: [UInt8] = []
            try record.writeJSON(into: &written)
            let expected = Array(try Self.reference.encode(ReferenceLine(record: record)))
            #expect(
                written == expected,
                "record \(index):\n\(String(decoding: written, as: UTF8.self))\n\(String(decoding: expected, as: UTF8.self))"
            )
            if written != expected { return }
        }
    }

    /// A record of many navigation operations without a screen (a tag alone in the store, up
    /// to twelve bytes in the line) and short strings: its line fits the room made for it, from
    /// its stored bytes as from its values, and is the same.
    @Test func aRecordOfManyOperationsWithoutAScreenIsWrittenWhole() throws {
        let record = TransitionRecord(
            sequence: 1, session: "s", version: 1, timestamp: Timestamp(microsecondsSince1970: 0), machine: "m",
            definition: "d", event: "e", source: [], target: ["a"],
            navigation: Array(repeating: NavigationOperation.popToRoot, count: 500) + [.none, .pop], payload: [],
            stateData: [], origin: nil)
        var room: [UInt8] = []
        var fromView: [UInt8] = []
        try RecordCodec.encode(record).withUnsafeBytes { bytes in
            try RecordView(bytes, sequence: 1).writeLineJSON(recordedState: nil, into: &fromView, room: &room)
        }
        var fromValues: [UInt8] = []
        try SessionArchive.Record(record).writeJSON(into: &fromValues)
        #expect(fromView == fromValues)
        let read = try SessionArchive.Record(jsonBody: fromView, formatVersion: SessionArchive.formatVersion)
        #expect(read.navigation == record.navigation)
    }

    /// A number held as decimal text (more digits than a `Double` holds) is written as its text:
    /// the line reads back as the very payload bytes.
    @Test func aDecimalPayloadIsWrittenAsItsTextAndReadsBack() throws {
        let payload = try JSONValue(
            jsonBytes: Array(
                #"{"amount":0.1000000000000000055511151231257827,"big":123456789012345678901234567890,"max":1.7976931348623157e308}"#
                    .utf8)
        ).jsonBytes()
        var record = SessionArchive.Record(
            TransitionRecord(
                sequence: 1, session: "s", version: 1, timestamp: Timestamp(microsecondsSince1970: 0), machine: "m",
                definition: "d", event: "e", source: [], target: ["a"], navigation: [], payload: payload,
                stateData: [], origin: nil))
        record.recordedState = try JSONValue(jsonBytes: payload)
        var written: [UInt8] = []
        try record.writeJSON(into: &written)
        #expect(
            String(decoding: written, as: UTF8.self).contains(
                #""payload":\#(String(decoding: payload, as: UTF8.self))"#))
        let read = try SessionArchive.Record(jsonBody: written, formatVersion: SessionArchive.formatVersion)
        #expect(read.payload == payload)
        #expect(read.recordedState == record.recordedState)
    }

    /// A recorded state holding NaN cannot be written: the line is refused and nothing of it stays.
    @Test func aLineThatCannotBeWrittenLeavesNothingBehind() throws {
        var writer = try SessionArchive.Writer(
            session: "s", machine: "m", definitions: [], records: 1, base: nil)
        let header = writer.pending
        var record = SessionArchive.Record(
            TransitionRecord(
                sequence: 1, session: "s", version: 1, timestamp: Timestamp(microsecondsSince1970: 0), machine: "m",
                definition: "d", event: "e", source: [], target: ["a"], navigation: [], payload: [], stateData: [],
                origin: nil))
        record.recordedState = .array([.number(JSONNumber(Double.nan))])
        #expect(throws: JSONWriteError.self) { try writer.append(record) }
        #expect(writer.pending == header)
        #expect(writer.written == 0)
    }

    /// A checksum's digits: 8, lowercase, zero-padded, the same from `hex` and in a line's envelope.
    @Test func checksumDigitsAreEightLowercaseHexDigits() {
        for value: UInt32 in [0, 0x1A, 0xDEAD_BEEF, 0x0F00_0001, .max] {
            let digits = String(value, radix: 16)
            let expected = String(repeating: "0", count: 8 - digits.count) + digits
            #expect(SessionArchive.hex(value) == expected)
        }
        var bytes: [UInt8] = []
        SessionArchive.Writer.appendLine(to: &bytes) { $0.append(contentsOf: Array(#"{"a":1}"#.utf8)) }
        let line = String(decoding: bytes, as: UTF8.self)
        let checksum = SessionArchive.hex(CRC32C.checksum(Array(#"{"a":1}"#.utf8)))
        #expect(line == #"{"crc32c":""# + checksum + #"","body":{"a":1}}"# + "\n")
    }
}
