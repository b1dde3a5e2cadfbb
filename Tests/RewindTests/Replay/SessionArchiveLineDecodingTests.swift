import Foundation
import RewindBaseTestSupport
@_spi(Internals) import RewindStore
import RewindTestSupport
import Testing

@testable import Rewind

/// An archive's line bodies read back (`SessionArchive.Record(jsonBody:formatVersion:)`, the
/// header's and the trailer's `init(jsonBody:)`): every record the writer writes reads back as
/// itself, and a body that is not a record (a header, a trailer) is refused with a
/// `JSONShapeError` naming the member at fault (or the `JSONParseError` of a body that is no
/// JSON).
@Suite struct SessionArchiveLineDecodingTests {
    @Test func everyWrittenRecordReadsBackAsItself() throws {
        var random = SeededRandom(seed: 0x0DEC_0DE5)
        for index in 0..<3_000 {
            let record = try SessionArchiveRecordJSONTests.record(&random)
            var written: [UInt8] = []
            try record.writeJSON(into: &written)
            let read = try SessionArchive.Record(jsonBody: written, formatVersion: SessionArchive.formatVersion)
            let line = String(decoding: written, as: UTF8.self)
            #expect(read.version == record.version, "record \(index): \(line)")
            #expect(read.sequence == record.sequence, "record \(index): \(line)")
            #expect(read.timestamp == record.timestamp, "record \(index): \(line)")
            #expect(read.machine == record.machine, "record \(index): \(line)")
            #expect(read.definition == record.definition, "record \(index): \(line)")
            #expect(read.event == record.event, "record \(index): \(line)")
            #expect(read.source == record.source, "record \(index): \(line)")
            #expect(read.target == record.target, "record \(index): \(line)")
            #expect(read.navigation == record.navigation, "record \(index): \(line)")
            #expect(read.payload == record.payload, "record \(index): \(line)")
            #expect(read.stateData == record.stateData, "record \(index): \(line)")
            #expect(read.origin == record.origin, "record \(index): \(line)")
            #expect(read.redacted == record.redacted, "record \(index): \(line)")
            #expect(read.recordedState == record.recordedState, "record \(index): \(line)")
        }
    }

    /// The members a record needs, in a body that is otherwise a record.
    private static let valid: [String: String] = [
        "version": "3", "sequence": "7", "timestamp": "-5", "machine": #""m""#, "definition": #""d""#,
        "event": #""e""#, "source": #"["a"]"#, "target": #"["b"]"#, "navigation": #"["pop",{"push":"x"}]"#,
    ]

    private static func body(_ members: [String: String]) -> [UInt8] {
        Array(
            ("{" + members.sorted { $0.key < $1.key }.map { #""\#($0.key)":\#($0.value)"# }.joined(separator: ",") + "}")
                .utf8)
    }

    private static func refusal(_ members: [String: String]) -> (any Error)? {
        refusalOf(String(decoding: body(members), as: UTF8.self))
    }

    @Test func theValidBodyReads() throws {
        let record = try SessionArchive.Record(
            jsonBody: Self.body(Self.valid), formatVersion: SessionArchive.formatVersion)
        #expect(record.version == 3 && record.sequence == 7 && record.timestamp == -5)
        #expect(record.navigation == [.pop, .push("x")])
        #expect(record.payload.isEmpty && record.stateData.isEmpty && record.origin == nil && !record.redacted)
    }

    @Test(arguments: [
        "version", "sequence", "timestamp", "machine", "definition", "event", "source", "target", "navigation",
    ])
    func aMissingMemberIsNamed(_ member: String) {
        var members = Self.valid
        members[member] = nil
        let error = Self.refusal(members)
        #expect(error as? JSONShapeError == JSONShapeError(path: [], expected: "a member '\(member)'"))
    }

    @Test(arguments: [
        ("version", "-1", ["version"], "a non-negative integer in the range of UInt64"),
        ("version", "1.5", ["version"], "a non-negative integer in the range of UInt64"),
        ("sequence", #""7""#, ["sequence"], "a non-negative integer in the range of UInt64"),
        ("timestamp", "9223372036854775808", ["timestamp"], "an integer in the range of Int64"),
        ("machine", "1", ["machine"], "a string"),
        ("source", #"["a",1]"#, ["source", "1"], "a string"),
        ("target", #""b""#, ["target"], "an array"),
        ("redacted", "1", ["redacted"], "a boolean"),
        ("origin", #"{"session":"s"}"#, ["origin"], "a member 'version'"),
        ("origin", #"{"session":"","version":1}"#, ["origin", "session"], "a valid session id"),
        ("payloadBase64", #""not base64!""#, ["payloadBase64"], "a base64 string"),
        ("navigation", "{}", ["navigation"], "an array"),
        ("navigation", #"["pop",{"push":1}]"#, ["navigation", "1", "push"], "a string"),
    ])
    func aMemberOfTheWrongTypeIsNamed(_ member: String, _ value: String, _ path: [String], _ expected: String) {
        var members = Self.valid
        members[member] = value
        #expect(Self.refusal(members) as? JSONShapeError == JSONShapeError(path: path, expected: expected))
    }

    /// JSON leaves the members' order free: a body in another order than the writer's reads the
    /// same, members the reader does not know are skipped, and of a repeated member the last wins.
    @Test func membersReadInAnyOrderUnknownOnesSkippedTheLastOfARepeatedOneWins() throws {
        let reversed =
            "{"
            + Self.valid.sorted { $0.key > $1.key }.map { #""\#($0.key)":\#($0.value)"# }
            .joined(separator: ",") + #","future":{"nested":[1,{"a":null}]},"version":4}"#
        let record = try SessionArchive.Record(
            jsonBody: Array(reversed.utf8), formatVersion: SessionArchive.formatVersion)
        #expect(record.version == 4 && record.sequence == 7 && record.timestamp == -5)
        #expect(record.machine == "m" && record.event == "e" && record.source == ["a"] && record.target == ["b"])
        #expect(record.navigation == [.pop, .push("x")])
        // A member the reader skips must still be JSON.
        let broken = String(reversed.dropLast()) + #","future":[1,}"#
        #expect(Self.refusalOf(broken) is JSONParseError)
    }

    @Test func anInvalidNavigationOperationIsNamedWithItsIndex() {
        for operation in [#""jump""#, #"{"jump":"x"}"#, #"{"push":"x","pop":"y"}"#, "1"] {
            var members = Self.valid
            members["navigation"] = #"["none",\#(operation)]"#
            let error = Self.refusal(members) as? JSONShapeError
            #expect(error?.path == ["navigation", "1"], "\(operation)")
            #expect(error?.expected.hasPrefix("a navigation operation") == true, "\(operation)")
        }
    }

    @Test func aBodyThatIsNoObjectOrNoJSONIsRefusedAsAWhole() {
        #expect(Self.refusalOf("[1]") as? JSONShapeError == JSONShapeError(path: [], expected: "an object"))
        #expect(Self.refusalOf(#"{"version":"#) is JSONParseError)
    }

    /// The error reading `body` throws, `nil` when it reads.
    private static func refusalOf(_ body: String) -> (any Error)? {
        do {
            _ = try SessionArchive.Record(jsonBody: Array(body.utf8), formatVersion: SessionArchive.formatVersion)
            return nil
        } catch {
            return error
        }
    }

    /// Format version 1 wrote `payload` and `stateData` in base64 on every line: a line without
    /// them is refused, one with them reads their bytes.
    @Test func formatVersionOneNeedsItsBase64Members() throws {
        var members = Self.valid
        members["navigation"] = #"[{"pop":{}}]"#
        let missing = #expect(throws: JSONShapeError.self) {
            try SessionArchive.Record(jsonBody: Self.body(members), formatVersion: 1)
        }
        #expect(missing == JSONShapeError(path: [], expected: "a member 'payload'"))
        members["payload"] = #""AQI=""#
        members["stateData"] = #""""#
        let record = try SessionArchive.Record(jsonBody: Self.body(members), formatVersion: 1)
        #expect(record.payload == [1, 2] && record.stateData.isEmpty && record.navigation == [.pop])
    }

    /// An import of an archive whose record line is no record fails on that line, naming the
    /// member, and stores nothing.
    @Test func anImportOfADamagedRecordLineNamesTheLineAndTheMember() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let machine = try Machine(
            MachineDefinition("toggle") {
                StateNode("off") { On("flip", to: "on") }
                StateNode("on") { On("flip", to: "off") }
            })
        let engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        let session = try await engine.startSession(id: "s", machine: "toggle")
        try await session.send("flip")
        try await session.send("flip")
        var lines = String(decoding: try engine.exportSession("s"), as: UTF8.self).split(separator: "\n").map(
            String.init)
        // The second record line, its version a string, its envelope's checksum made right again.
        let envelope = lines[2]
        let bodyStart = envelope.index(envelope.startIndex, offsetBy: SessionArchive.bodyOffset)
        var body = String(envelope[bodyStart..<envelope.index(before: envelope.endIndex)])
        body = body.replacingOccurrences(of: #""version":2"#, with: #""version":"2""#)
        let checksum = Array(body.utf8).withUnsafeBytes { CRC32C.checksum($0) }
        lines[2] = #"{"crc32c":""# + SessionArchive.hex(checksum) + #"","body":"# + body + "}"
        let damaged = Data((lines.joined(separator: "\n") + "\n").utf8)
        let error = await #expect(throws: SessionArchiveError.self) {
            try await engine.importSession(damaged, as: "copy")
        }
        guard case .malformedLine(let line, let reason, let cause)? = error else {
            Issue.record("expected malformedLine, got \(String(describing: error))")
            return
        }
        #expect(line == 3)
        #expect(
            reason == "its body does not decode: expected a non-negative integer in the range of UInt64 at version")
        #expect(cause?.error is JSONShapeError)
        #expect(try engine.store.sessionInfo(for: "copy") == nil)
    }

    /// `SessionArchive.body(of:number:)`: a line is `{"crc32c":"<8 hex digits>","body":<body>}`; a
    /// line that is not (its start, its middle, its end, its length, its digits) is refused
    /// naming the line, and a checksum that does not match is a mismatch.
    @Test func aLineThatIsNoEnvelopeIsRefused() throws {
        let body = #"{"a":1}"#
        let crc = Array(body.utf8).withUnsafeBytes { CRC32C.checksum($0) }
        let checksum = SessionArchive.hex(crc)
        func read(_ line: String) throws -> String {
            String(decoding: try SessionArchive.body(of: ArraySlice(Array(line.utf8)), number: 7), as: UTF8.self)
        }
        #expect(try read(#"{"crc32c":""# + checksum + #"","body":"# + body + "}") == body)
        #expect(try read(#"{"crc32c":""# + checksum.uppercased() + #"","body":"# + body + "}") == body)
        let notAnEnvelope = SessionArchiveError.malformedLine(
            line: 7, reason: #"it is not a {"crc32c":"…","body":…} envelope"#)
        for line in [
            #"{"crc32C":""# + checksum + #"","body":"# + body + "}",
            #"["crc32c":""# + checksum + #"","body":"# + body + "}",
            #"{"crc32c":""# + checksum + #"","bodY":"# + body + "}",
            #"{"crc32c":""# + checksum + #"" ,"body":"# + body + "}",
            #"{"crc32c":""# + checksum + #"","body":"# + body + "]",
            #"{"crc32c":""# + checksum + #"","body":"#,
            #"{"crc32c":""#, "", "}",
        ] {
            #expect(throws: notAnEnvelope, "\(line)") { try read(line) }
        }
        #expect(
            throws: SessionArchiveError.malformedLine(line: 7, reason: "its checksum '0000000g' is not hexadecimal")
        ) { try read(#"{"crc32c":"0000000g","body":"# + body + "}") }
        #expect(throws: SessionArchiveError.checksumMismatch(line: 7, stored: 0, computed: crc)) {
            try read(#"{"crc32c":"00000000","body":"# + body + "}")
        }
    }

    /// A header that names everything an import needs.
    private static let header: [String: String] = [
        "format": #""rewind.session""#, "formatVersion": "2", "session": #""s""#, "machine": #""m""#,
        "records": "2", "definitions": #"[{"version":"v1","document":{"name":"m"}}]"#,
    ]

    private static func headerRefusal(_ members: [String: String]) -> (any Error)? {
        do {
            _ = try SessionArchive.Header(jsonBody: body(members))
            return nil
        } catch {
            return error
        }
    }

    @Test func aHeaderReadsItsMembersAndItsOptionalBase() throws {
        let header = try SessionArchive.Header(jsonBody: Self.body(Self.header))
        #expect(header.format == "rewind.session" && header.formatVersion == 2 && header.session == "s")
        #expect(header.machine == "m" && header.records == 2 && header.base == nil)
        #expect(header.definitions.map(\.version) == ["v1"])
        #expect(header.definitions.first?.document == .object(["name": .string("m")]))
        var members = Self.header
        members["base"] = "null"
        #expect(try SessionArchive.Header(jsonBody: Self.body(members)).base == nil)
        members["base"] = #"{"state":{"version":5},"version":5}"#
        let base = try #require(try SessionArchive.Header(jsonBody: Self.body(members)).base)
        #expect(base.version == 5 && base.state == .object(["version": 5]))
    }

    @Test(arguments: ["format", "formatVersion", "session", "machine", "records", "definitions"])
    func aHeaderMissingAMemberIsNamed(_ member: String) {
        var members = Self.header
        members[member] = nil
        #expect(
            Self.headerRefusal(members) as? JSONShapeError == JSONShapeError(path: [], expected: "a member '\(member)'")
        )
    }

    @Test(arguments: [
        ("formatVersion", #""2""#, ["formatVersion"], "an integer in the range of Int64"),
        ("records", "-2", ["records"], "a non-negative integer in the range of UInt64"),
        ("definitions", "{}", ["definitions"], "an array"),
        ("definitions", #"[{"version":"v1"}]"#, ["definitions", "0"], "a member 'document'"),
        ("definitions", #"[{"version":1,"document":{}}]"#, ["definitions", "0", "version"], "a string"),
        ("base", #"{"version":5}"#, ["base"], "a member 'state'"),
        ("base", "[]", ["base"], "an object"),
    ])
    func aHeaderMemberOfTheWrongTypeIsNamed(_ member: String, _ value: String, _ path: [String], _ expected: String) {
        var members = Self.header
        members[member] = value
        #expect(Self.headerRefusal(members) as? JSONShapeError == JSONShapeError(path: path, expected: expected))
    }

    @Test func aTrailerReadsAndOneMissingAMemberIsNamed() throws {
        let trailer = try SessionArchive.Trailer(jsonBody: Array(#"{"checksum":"0a","end":"e","records":3}"#.utf8))
        #expect(trailer.checksum == "0a" && trailer.end == "e" && trailer.records == 3)
        #expect(
            throws: JSONShapeError(path: [], expected: "a member 'checksum'"),
            performing: { try SessionArchive.Trailer(jsonBody: Array(#"{"end":"e","records":3}"#.utf8)) })
    }
}
