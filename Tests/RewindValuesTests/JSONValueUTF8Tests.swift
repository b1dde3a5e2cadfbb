import Foundation
import RewindBaseTestSupport
@_spi(Internals) import RewindValues
import Testing

struct JSONValueUTF8Tests {
    private func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try JSONValue(jsonBytes: Array(text.utf8))
    }

    private func parseError(_ bytes: [UInt8]) -> JSONParseError? {
        do {
            _ = try JSONValue(jsonBytes: bytes)
            return nil
        } catch {
            return error
        }
    }

    private func parseError(_ text: String) -> JSONParseError? {
        parseError(Array(text.utf8))
    }

    private func foundationBytes(_ value: JSONValue) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(value))
    }

    // MARK: Parsing

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(#" {"n":null, "t":true,"f":false,"x":-1.5e2,"s":"a\"b","a":[1,[],{}],"o":{"k":"v"}} "#)
        #expect(
            value == ["n": nil, "t": true, "f": false, "x": -150, "s": "a\"b", "a": [1, [], [:]], "o": ["k": "v"]])
    }

    @Test func parsesEscapesAndSurrogatePairs() throws {
        #expect(try parse(#""a\/b\n\t\r\b\f\\\"\u00e9\u65E5""#) == .string("a/b\n\t\r\u{8}\u{C}\\\"é日"))
        #expect(try parse(#""\ud83d\ude00 \uD83D\uDE00""#) == .string("😀 😀"))
        #expect(try parse("\"日本😀\"") == .string("日本😀"))
    }

    /// Strings are scanned eight bytes at a time until a special byte: each one at each place
    /// of the first three words (and a string ending at each place) is found and read as bytes
    /// one by one would.
    @Test func aSpecialByteAnywhereInAStringIsFound() throws {
        for length in 0..<26 {
            let plain = String(repeating: "a", count: length)
            #expect(try parse("\"\(plain)\"") == .string(plain), "\(length)")
            #expect(try parse("[\"\(plain)\",\"~\u{7F} \"]") == [.string(plain), "~\u{7F} "], "\(length)")
        }
        for place in 0..<25 {
            let before = String(repeating: "b", count: place)
            let after = String(repeating: "c", count: 24 - place)
            for (text, value) in [
                (#"\""#, "\""), (#"\\"#, "\\"), (#"\n"#, "\n"), ("é", "é"), ("日", "日"), ("\u{7F}", "\u{7F}"),
                (" ", " "), ("!", "!"), ("#", "#"), ("[", "["), ("]", "]"), ("]", "]"), ("\u{5B}", "["),
            ] {
                #expect(
                    try parse("\"\(before)\(text)\(after)\"") == .string(before + value + after), "\(place) \(text)")
            }
            var control = Array("\"\(before)x\(after)\"".utf8)
            control[1 + place] = 0x1F
            #expect(parseError(control) == JSONParseError(offset: 1 + place, reason: .controlCharacterInString(0x1F)))
            for byte: UInt8 in [0xFF, 0xC0, 0x85, 0x9F, 0x80] {  // never in UTF-8; continuations alone
                var invalid = control
                invalid[1 + place] = byte
                #expect(parseError(invalid) == JSONParseError(offset: 1 + place, reason: .invalidUTF8), "\(byte)")
            }
            let unterminated = Array("\"\(before)\(after)".utf8)
            #expect(parseError(unterminated)?.reason == .unexpectedEnd, "\(place)")
        }
    }

    /// Strings are written eight bytes at a time until a byte that may need an escape: each kind
    /// at each place of the first three words is written as `JSONEncoder` writes it, `/` escaped
    /// or not.
    @Test func aSpecialByteAnywhereInAStringIsEscaped() throws {
        let plain = JSONEncoder()
        plain.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for place in 0..<25 {
            let before = String(repeating: "b", count: place)
            let after = String(repeating: "c", count: 24 - place)
            for special in ["\"", "\\", "/", "\n", "\u{1F}", "\u{0}", "é", "日", "\u{7F}", " "] {
                let value = JSONValue.string(before + special + after)
                #expect(try value.jsonBytes() == foundationBytes(value), "\(place) \(special)")
                var unescaped: [UInt8] = []
                try value.write(into: &unescaped, escapingSlashes: false)
                #expect(unescaped == Array(try plain.encode(value)), "\(place) \(special)")
            }
        }
        for length in 0..<26 {
            let value = JSONValue.string(String(repeating: "a", count: length))
            #expect(try value.jsonBytes() == foundationBytes(value), "\(length)")
        }
    }

    @Test func numbersAreExactAndTheirDoublesCorrectlyRounded() throws {
        let texts = [
            "0", "-0", "1", "-1", "0.1", "1.5", "1e-7", "1E+2", "0e10", "123456789012345678",
            "9007199254740993", "2.2250738585072011e-308", "4.9e-324", "1.7976931348623157e308",
            "12345678901234567890.123", "0.000001", "3.141592653589793", "1e22", "1e23", "-2.5e-5",
            "0.30000000000000004", "100000000000000000000000000000000000001",
        ]
        for text in texts {
            let expected = try #require(Double(text))
            let parsed = try parse(text)
            #expect(parsed == .number(try #require(JSONNumber(text: text))), "\(text)")
            #expect(parsed.doubleValue?.bitPattern == expected.bitPattern, "\(text)")
        }
    }

    /// The members of the object `text` read one by one (`JSONParser` read as a known shape),
    /// keys with their escapes resolved, values read whole; `nil`, the whole text checked, when it
    /// is JSON but no object. Strings are interned in `strings` when there is one.
    private static func members(
        of text: String, remembering strings: inout UTF8KeyTable?
    ) throws(JSONParseError) -> [(key: String, value: JSONValue)]? {
        let bytes = Array(text.utf8)
        let read = bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer)
            // Moved into the parser and back, so that it is not copied on write.
            let isRemembering = strings != nil
            if let table = strings {
                strings = nil
                parser.isRememberingStrings = true
                parser.strings = table
            }
            defer { if isRemembering { strings = parser.strings } }
            return Result { () throws(JSONParseError) -> [(key: String, value: JSONValue)]? in
                guard try parser.enterObject() else {
                    _ = try parser.readValue()
                    try parser.endDocument()
                    return nil
                }
                var members: [(key: String, value: JSONValue)] = []
                var cursor = JSONContainerCursor()
                while let key = try parser.nextMember(in: &cursor) {
                    let name = key.withBytes { String(decoding: $0, as: UTF8.self) }
                    members.append((name, try parser.readValue()))
                }
                try parser.endDocument()
                return members
            }
        }
        return try read.get()
    }

    private static func members(of text: String) throws(JSONParseError) -> [(key: String, value: JSONValue)]? {
        var none: UTF8KeyTable? = nil
        return try members(of: text, remembering: &none)
    }

    /// An object read member by member: its members in the text's order, a repeated key each
    /// time, a key's escapes resolved (and kept while a value with escapes of its own is parsed);
    /// any other JSON text checked whole; malformed text refused with the same error as the
    /// parser's.
    @Test func anObjectsMembersComeInTheirOrder() throws {
        let seen = try #require(try Self.members(of: #" {"b":1,"a":[true,{"c":null}],"b":"x","\u00e9\"k":"v\"w\n"} "#))
        #expect(seen.map(\.key) == ["b", "a", "b", "é\"k"])
        #expect(seen.map(\.value) == [1, [true, ["c": nil]], "x", "v\"w\n"])
        #expect(try #require(try Self.members(of: "{}")).isEmpty)
        #expect(try Self.members(of: " [1] ") == nil)
        for text in [#"{"a":1,}"#, #"{"a":1} x"#, "[1,]", "{", #"{"a":[1}"#, "", "\"a\u{1}\""] {
            let expected = try #require(parseError(text), "\(text)")
            #expect(throws: expected, "\(text)", performing: { try Self.members(of: text) })
        }
    }

    /// Many objects read through one table of strings give the values each read alone gives
    /// (strings with escapes, non-ASCII, equivalent texts of other bytes, nested, repeated in other
    /// places, more distinct strings than the table keeps), each escape-free string is interned,
    /// and the table stays within its bound.
    @Test func objectsParsedThroughOneTableAreTheObjectsParsedAlone() throws {
        var random = SeededRandom(seed: 34)
        let words =
            [
                "home", "detail", "caf\u{E9}", "cafe\u{301}", "with \\\"escape\\\"", "\\u00e9t\\u00e9", "",
                "abcdefgh-middle-ijklmnop", "abcdefgh-MIDDLE-ijklmnop",
            ] + (0..<(JSONValue.maximumRememberedStrings + 500)).map { "state-\($0)" }
        func word() -> String { words[Int.random(in: 0..<words.count, using: &random)] }
        var table: UTF8KeyTable? = JSONValue.stringMemory()
        var largest = 0
        for _ in 0..<6_000 {
            let screen = word()
            let text =
                #"{"event":"\#(word())","target":["\#(word())","\#(word())"],"# + #""push":{"screen":"\#(screen)"}}"#
            let remembered = try #require(try Self.members(of: text, remembering: &table))
            let alone = try #require(try Self.members(of: text))
            #expect(remembered.map(\.0) == alone.map(\.0))
            // Compared as their canonical bytes: equal Swift strings may be other bytes.
            #expect(try remembered.map { try $0.1.jsonBytes() } == alone.map { try $0.1.jsonBytes() })
            // The last string parsed is remembered (a start over happens before an insert).
            // Taken out and put back: not copied on write.
            var strings = try #require(table)
            table = nil
            if !screen.contains("\\") { #expect(strings.index(of: screen) != nil) }
            largest = max(largest, strings.count)
            table = strings
        }
        // More distinct strings than the bound, drawn 24,000 times: the table started over.
        #expect(largest == JSONValue.maximumRememberedStrings)
        #expect(try #require(table).count < largest)
    }

    @Test func malformedTextsFailWithTheOffsetAndReason() {
        let cases: [(String, JSONParseError)] = [
            ("", JSONParseError(offset: 0, reason: .unexpectedEnd)),
            ("   ", JSONParseError(offset: 3, reason: .unexpectedEnd)),
            ("[1,]", JSONParseError(offset: 3, reason: .unexpectedByte(UInt8(ascii: "]")))),
            ("01", JSONParseError(offset: 1, reason: .trailingData)),
            ("1 2", JSONParseError(offset: 2, reason: .trailingData)),
            ("1.", JSONParseError(offset: 2, reason: .unexpectedEnd)),
            ("1.e3", JSONParseError(offset: 2, reason: .invalidNumber)),
            ("1e+", JSONParseError(offset: 3, reason: .unexpectedEnd)),
            ("-x", JSONParseError(offset: 1, reason: .invalidNumber)),
            ("+1", JSONParseError(offset: 0, reason: .unexpectedByte(UInt8(ascii: "+")))),
            ("1e400", JSONParseError(offset: 0, reason: .numberOutOfRange)),
            ("-1e400", JSONParseError(offset: 0, reason: .numberOutOfRange)),
            ("1e-400", JSONParseError(offset: 0, reason: .numberOutOfRange)),
            ("tru", JSONParseError(offset: 3, reason: .unexpectedEnd)),
            ("nulL", JSONParseError(offset: 3, reason: .unexpectedByte(UInt8(ascii: "L")))),
            (#"{"a" 1}"#, JSONParseError(offset: 5, reason: .unexpectedByte(UInt8(ascii: "1")))),
            ("{1:2}", JSONParseError(offset: 1, reason: .unexpectedByte(UInt8(ascii: "1")))),
            (#"{"a":1,}"#, JSONParseError(offset: 7, reason: .unexpectedByte(UInt8(ascii: "}")))),
            ("\"a\u{1}\"", JSONParseError(offset: 2, reason: .controlCharacterInString(1))),
            (#""\x""#, JSONParseError(offset: 2, reason: .invalidEscape(UInt8(ascii: "x")))),
            (#""\u12G4""#, JSONParseError(offset: 5, reason: .invalidUnicodeEscape)),
            (#""\u12"#, JSONParseError(offset: 5, reason: .unexpectedEnd)),
            (#""\ud800""#, JSONParseError(offset: 1, reason: .unpairedSurrogate)),
            (#""\udc00""#, JSONParseError(offset: 1, reason: .unpairedSurrogate)),
            (#""\ud800\u0041""#, JSONParseError(offset: 1, reason: .unpairedSurrogate)),
            ("\"abc", JSONParseError(offset: 4, reason: .unexpectedEnd)),
            ("// comment\n1", JSONParseError(offset: 0, reason: .unexpectedByte(UInt8(ascii: "/")))),
        ]
        for (text, expected) in cases {
            #expect(parseError(text) == expected, "\(text)")
        }
    }

    @Test func malformedUTF8IsRejected() {
        let quote = UInt8(ascii: "\"")
        let sequences: [[UInt8]] = [
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0x80], [0xFF], [0xE6, 0x97], [0xE6, 0x41, 0x41],
        ]
        for sequence in sequences {
            #expect(parseError([quote] + sequence + [quote])?.reason == .invalidUTF8, "\(sequence)")
            #expect(
                parseError([quote, UInt8(ascii: "\\"), UInt8(ascii: "n")] + sequence + [quote])?.reason == .invalidUTF8)
        }
        #expect(parseError([quote, 0xE6, 0x97])?.reason == .unexpectedEnd)
    }

    @Test func nestingDeeperThanTheLimitIsRejected() throws {
        let limit = JSONValue.maximumParseDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try parse(deepest) }
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(parseError(tooDeep) == JSONParseError(offset: limit, reason: .tooDeep(limit: limit)))
        let hostile = String(repeating: #"{"a":["#, count: 100_000)
        #expect(parseError(hostile)?.reason == .tooDeep(limit: limit))
    }

    @Test func acceptsBytesFromAnyCollection() throws {
        let text = #"{"k":[1,"v"]}"#
        let expected: JSONValue = ["k": [1, "v"]]
        #expect(try JSONValue(jsonBytes: Data(text.utf8)) == expected)
        #expect(try JSONValue(jsonBytes: Array(("  " + text).utf8).dropFirst(2)) == expected)
        #expect(try JSONValue(jsonBytes: text.utf8.lazy.map { $0 }) == expected)
        #expect(
            try Array(text.utf8).withUnsafeBytes { buffer throws(JSONParseError) in try JSONValue(jsonBytes: buffer) }
                == expected)
    }

    @Test func errorsDescribeWhatAndWhere() {
        let description = parseError("[1,}")?.description ?? ""
        #expect(description.contains("byte 3"))
        #expect(description.contains("0x7D"))
    }

    // MARK: Writing

    @Test func writesTheCanonicalText() throws {
        let value: JSONValue = [
            "b": [1, 1.5, -0.0, 1e16, true, nil], "a": "x/y\"\\\n\u{1}\u{7F}é", "B": [:], "a10": 2, "a2": 3,
        ]
        let text = String(decoding: try value.jsonBytes(), as: UTF8.self)
        #expect(
            text == #"{"B":{},"a":"x\/y\"\\\n\u0001"# + "\u{7F}é"
                + #"","a10":2,"a2":3,"b":[1,1.5,-0,10000000000000000,true,null]}"#)
    }

    @Test func writeAppendsToTheGivenBuffer() throws {
        var bytes = Array("prefix:".utf8)
        try JSONValue.array([1, "a"]).write(into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"prefix:[1,"a"]"#)
    }

    @Test func nonFiniteNumbersCannotBeWritten() {
        let value: JSONValue = ["a": [1, .number(.nan)]]
        #expect {
            try value.jsonBytes()
        } throws: { error in
            guard let error = error as? JSONWriteError else { return false }
            return error.path == ["a", "1"] && error.number.isNaN && error.description.contains("a/1")
        }
        #expect(throws: JSONWriteError.self) { try JSONValue.number(.infinity).jsonBytes() }
    }

    // MARK: Randomised

    @Test func randomValuesRoundTripAndMatchFoundationByteForByte() throws {
        var generator = SeededRandom(seed: 0x5EED_0001)
        for _ in 0..<2_000 {
            let value = RandomJSON.value(using: &generator)
            let bytes = try value.jsonBytes()
            #expect(try JSONValue(jsonBytes: bytes) == value)
            #expect(bytes == (try foundationBytes(value)), "\(value)")
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(bytes)) == value)
        }
    }

    @Test func parsesWhatFoundationWritesWithoutSortedKeys() throws {
        var generator = SeededRandom(seed: 0x5EED_0002)
        for _ in 0..<1_000 {
            let value = RandomJSON.value(using: &generator)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted]
            #expect(try JSONValue(jsonBytes: try encoder.encode(value)) == value)
        }
    }

    @Test func everyTruncationOfADocumentFailsCleanly() throws {
        var generator = SeededRandom(seed: 0x5EED_0003)
        for _ in 0..<100 {
            let bytes = try RandomJSON.object(using: &generator).jsonBytes()
            for length in 0..<bytes.count {
                let error = parseError(Array(bytes[..<length]))
                #expect(error != nil, "prefix of \(length) bytes parsed")
                #expect((error?.offset ?? 0) <= length)
            }
        }
    }

    @Test func foundationTrailingCommasAreRejected() {
        #expect(parseError(#"{"a":[],}"#)?.reason == .unexpectedByte(UInt8(ascii: "}")))
        #expect(parseError("[1,]")?.reason == .unexpectedByte(UInt8(ascii: "]")))
        #expect((try? JSONDecoder().decode(JSONValue.self, from: Data(#"{"a":[],}"#.utf8))) != nil)
    }

    /// `value` with every number replaced by its nearest `Double`.
    static func rounded(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let number): return .number(number.doubleValue)
        case .array(let elements): return .array(elements.map(rounded))
        case .object(let members): return .object(members.mapValues(rounded))
        case .null, .bool, .string: return value
        }
    }

    @Test func mutatedDocumentsAreAcceptedOrRejectedAsFoundationDoes() throws {
        var generator = SeededRandom(seed: 0x5EED_0004)
        let interesting: [UInt8] =
            Array(#"{}[],:"\/-+.0159eEtfnu "#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xED, 0xF0, 0xFF]
        for _ in 0..<3_000 {
            var bytes = try RandomJSON.object(using: &generator).jsonBytes()
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0...2, using: &generator) {
                case 0: bytes[index] = interesting.randomElement(using: &generator) ?? 0
                case 1: bytes.remove(at: index)
                default: bytes.insert(interesting.randomElement(using: &generator) ?? 0, at: index)
                }
                if bytes.isEmpty { bytes = [0x20] }
            }
            let ours = try? JSONValue(jsonBytes: bytes)
            let foundation = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
            // Foundation also accepts a trailing comma in arrays and objects; RFC 8259 does not.
            let text = String(decoding: bytes.filter { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }, as: UTF8.self)
            let foundationLeniency = text.contains(",}") || text.contains(",]")
            if !foundationLeniency {
                #expect((ours == nil) == (foundation == nil), "\(String(decoding: bytes, as: UTF8.self))")
            }
            if ours != nil { #expect(foundation != nil, "\(String(decoding: bytes, as: UTF8.self))") }
            if let ours, let foundation {
                // `Decoder` gives a number as an integer, a `Double` or a `Decimal`: a text that none
                // of them holds exactly (`2.79060215191258725e-231`) comes out rounded there, and
                // exact here.
                #expect(Self.rounded(ours) == Self.rounded(foundation), "\(String(decoding: bytes, as: UTF8.self))")
                #expect(try JSONValue(jsonBytes: try ours.jsonBytes()) == ours)
            }
        }
    }
}
