import Foundation
import RewindBaseTestSupport
@_spi(Internals) import RewindStore
@_spi(Internals) import RewindValues
import Testing

@testable import Rewind

/// A record line's body is read as the parser meets its members, its strings, lists and
/// navigation read as such (`JSONParser`'s reading of a known shape). The oracle here reads the
/// whole body into a `JSONValue` first and checks its members the way the reader did before: for
/// every body, valid or not, both give the same record or the same error.
@Suite struct SessionArchiveRecordReadingTests {
    /// The record of `body` as the whole-value reader reads it (its line), or its error's
    /// description.
    private static func reference(_ body: [UInt8]) -> String {
        do {
            guard case .object(let members) = try JSONValue(jsonBytes: body) else {
                throw JSONShapeError(path: [], expected: "an object")
            }
            func member(_ key: String) throws -> JSONValue {
                guard let value = members[key] else { throw JSONShapeError(path: [], expected: "a member '\(key)'") }
                return value
            }
            func optional(_ key: String) -> JSONValue? { members[key].flatMap { $0 == .null ? nil : $0 } }
            // The order of the checks is the reader's.
            let version = try JSONShape.uint64(try member("version"), at: ["version"])
            let sequence = try JSONShape.uint64(try member("sequence"), at: ["sequence"])
            let timestamp = try JSONShape.int64(try member("timestamp"), at: ["timestamp"])
            let machine = try JSONShape.string(try member("machine"), at: ["machine"])
            let definition = try JSONShape.string(try member("definition"), at: ["definition"])
            let event = try JSONShape.string(try member("event"), at: ["event"])
            let source = try JSONShape.strings(try member("source"), at: ["source"])
            let target = try JSONShape.strings(try member("target"), at: ["target"])
            let origin = try optional("origin").map(SessionArchive.Record.origin)
            let redacted = try optional("redacted").map { try JSONShape.bool($0, at: ["redacted"]) } ?? false
            let operations = try JSONShape.array(try member("navigation"), at: ["navigation"])
            let navigation = try operations.enumerated().map { index, operation in
                try ArchiveNavigation(json: operation, at: ["navigation", String(index)]).operation
            }
            func bytes(_ json: String, _ base64: String) throws -> [UInt8] {
                if let value = members[json] { return try value.jsonBytes() }
                guard let value = members[base64] else { return [] }
                guard let data = Data(base64Encoded: try JSONShape.string(value, at: [base64])) else {
                    throw JSONShapeError(path: [base64], expected: "a base64 string")
                }
                return Array(data)
            }
            var record = SessionArchive.Record(
                TransitionRecord(
                    sequence: sequence, session: "s", version: version,
                    timestamp: Timestamp(microsecondsSince1970: timestamp), machine: machine, definition: definition,
                    event: event, source: source, target: target, navigation: navigation,
                    payload: try bytes("payload", "payloadBase64"),
                    stateData: try bytes("stateData", "stateDataBase64"),
                    origin: origin, redacted: redacted))
            record.recordedState = members["recordedState"]
            return line(record)
        } catch {
            return "refused: \(error)"
        }
    }

    /// The record of `body` as the reader reads it (its line), or its error's description, read
    /// with `memory` (a reader of many lines keeps one).
    private static func read(_ body: [UInt8], remembering memory: inout RecordLineMemory) -> String {
        do {
            return line(
                try SessionArchive.Record(
                    jsonBody: body, formatVersion: SessionArchive.formatVersion, remembering: &memory))
        } catch {
            return "refused: \(error)"
        }
    }

    /// The record's line as the writer writes it, to compare two records.
    private static func line(_ record: SessionArchive.Record) -> String {
        var bytes: [UInt8] = []
        do {
            try record.writeJSON(into: &bytes)
        } catch {
            return "unwritable: \(error)"
        }
        return "record: " + String(decoding: bytes, as: UTF8.self)
    }

    /// The body reads as the whole-value reader reads it, with a memory of its own and with
    /// `memory`, which the bodies read before it went through (as an import's lines do).
    private static func expectSame(_ body: [UInt8], _ what: String, sharing memory: inout RecordLineMemory) {
        var fresh = RecordLineMemory()
        let expected = reference(body)
        #expect(read(body, remembering: &fresh) == expected, "\(what): \(String(decoding: body, as: UTF8.self))")
        #expect(
            read(body, remembering: &memory) == expected,
            "\(what), after other bodies: \(String(decoding: body, as: UTF8.self))")
    }

    /// Values a member may have in a body: of its own shape and of every other.
    private static let values: [String] = [
        "1", "-1", "1.5", "18446744073709551616", #""s""#, #""a\u0062""#, "true", "null", "[]", "{}", #"["a","b"]"#,
        #"["a",1]"#, #"[1,"a"]"#, #"["pop"]"#, #"["none","popToRoot",{"push":"x"}]"#, #"[{"push":1}]"#,
        #"[{"push":"x","pop":"y"}]"#, #"[{"push":"x","push":"y"}]"#, #"[{"jump":"x"}]"#, #"["jump"]"#,
        #"[{"setRoot":"a"},{"popTo":"b"},{"replace":"c"}]"#, #"[{"p\u0075sh":"x"}]"#, #"{"session":"a","version":2}"#,
        #"{"session":"","version":2}"#, #""e30=""#, #"[[["deep"]]]"#,
    ]

    private static let keys = [
        "version", "sequence", "timestamp", "machine", "definition", "event", "source", "target", "navigation",
        "origin", "redacted", "recordedState", "payload", "payloadBase64", "stateData", "stateDataBase64", "other",
        "ver\\u0073ion",
    ]

    @Test func everyWrittenRecordReadsAsTheWholeValueReaderReadsIt() throws {
        var random = SeededRandom(seed: 0x0DEC_0DE6)
        var memory = RecordLineMemory()
        for index in 0..<1_000 {
            let record = try SessionArchiveRecordJSONTests.record(&random)
            var written: [UInt8] = []
            try record.writeJSON(into: &written)
            Self.expectSame(written, "record \(index)", sharing: &memory)
        }
    }

    /// Bodies of members of every shape, repeated and escaped keys, in random order: the same
    /// record or the same error (the member checked first, the same path and expectation).
    @Test func bodiesOfMembersOfEveryShapeAreReadAsTheWholeValueReaderReadsThem() {
        var random = SeededRandom(seed: 0x0DEC_0DE7)
        var memory = RecordLineMemory()
        let valid: [(String, String)] = [
            ("version", "3"), ("sequence", "7"), ("timestamp", "-5"), ("machine", #""m""#), ("definition", #""d""#),
            ("event", #""e""#), ("source", #"["a"]"#), ("target", #"["b"]"#), ("navigation", #"["pop",{"push":"x"}]"#),
        ]
        for index in 0..<4_000 {
            var members = valid.filter { _ in !random.chance(0.05) }
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                members.append(
                    (Self.keys.randomElement(using: &random) ?? "", Self.values.randomElement(using: &random) ?? ""))
            }
            members.shuffle(using: &random)
            let body = "{" + members.map { #""\#($0.0)":\#($0.1)"# }.joined(separator: ",") + "}"
            Self.expectSame(Array(body.utf8), "body \(index)", sharing: &memory)
        }
    }

    /// Written records with a byte taken out, put in or changed: the same record, or the same
    /// error (a `JSONParseError` at the same offset).
    @Test func damagedBodiesAreRefusedAsTheWholeValueReaderRefusesThem() throws {
        var random = SeededRandom(seed: 0x0DEC_0DE8)
        var memory = RecordLineMemory()
        let bytes = Array(#"{}[],:"\ 0a-.e"#.utf8)
        for index in 0..<3_000 {
            var written: [UInt8] = []
            try SessionArchiveRecordJSONTests.record(&random).writeJSON(into: &written)
            let place = Int.random(in: 0..<written.count, using: &random)
            let byte = bytes.randomElement(using: &random) ?? 0
            switch Int.random(in: 0..<3, using: &random) {
            case 0: written.remove(at: place)
            case 1: written.insert(byte, at: place)
            default: written[place] = byte
            }
            Self.expectSame(written, "body \(index)", sharing: &memory)
        }
        for body in ["", " ", "[1]", "\"s\"", "{", "{}", "{} x", #"{"version":1,}"#, #"{"version"}"#] {
            Self.expectSame(Array(body.utf8), "body \(body.debugDescription)", sharing: &memory)
        }
    }

    /// Lines whose lists have the same text read as the same lists, sharing their storage; a
    /// list of the same values written another way reads as an equal list.
    @Test func listsOfTheSameTextAreReadOnceAndShared() throws {
        func body(_ source: String, _ navigation: String) -> [UInt8] {
            Array(
                (#"{"version":1,"sequence":1,"timestamp":0,"machine":"m","definition":"d","event":"e","source":"#
                    + source + #","target":["b"],"navigation":"# + navigation + "}").utf8)
        }
        var memory = RecordLineMemory()
        func record(_ bytes: [UInt8]) throws -> SessionArchive.Record {
            try SessionArchive.Record(
                jsonBody: bytes, formatVersion: SessionArchive.formatVersion, remembering: &memory)
        }
        func storage<Element>(_ list: [Element]) -> UnsafeRawPointer? {
            list.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        let first = try record(body(#"["screen-a","screen-b"]"#, #"[{"push":"detail"}]"#))
        let second = try record(body(#"["screen-a","screen-b"]"#, #"[{"push":"detail"}]"#))
        #expect(second.source == ["screen-a", "screen-b"])
        #expect(storage(second.source) == storage(first.source))
        #expect(second.navigation == [.push("detail")])
        #expect(storage(second.navigation) == storage(first.navigation))
        // The same values written another way: an equal list, made again.
        let escaped = try record(body(#"["screen-\u0061", "screen-b"]"#, #"[ {"push":"detail"} ]"#))
        #expect(escaped.source == first.source)
        #expect(escaped.navigation == first.navigation)
        #expect(storage(escaped.source) != storage(first.source))
    }

    /// Past the memory's bound (4,096 lists) it starts over: every line still reads its own
    /// lists, and the lists from before the bound read again as they were written.
    @Test func listsPastTheMemorysBoundStillReadAsWritten() throws {
        var memory = RecordLineMemory()
        func source(_ index: Int) throws -> [String] {
            let text =
                #"{"version":1,"sequence":1,"timestamp":0,"machine":"m","definition":"d","event":"e","#
                + #""source":["s\#(index)","t"],"target":["b"],"navigation":[]}"#
            return try SessionArchive.Record(
                jsonBody: Array(text.utf8), formatVersion: SessionArchive.formatVersion, remembering: &memory
            ).source
        }
        for index in 0..<5_000 {
            #expect(try source(index) == ["s\(index)", "t"], "list \(index)")
        }
        for index in stride(from: 0, to: 5_000, by: 97) {
            #expect(try source(index) == ["s\(index)", "t"], "list \(index) again")
        }
    }
}
