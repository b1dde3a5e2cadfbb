import Foundation
import PropertyBased
import RewindValues
import Testing

/// Numbers keep the value the app gave them: through `JSONValue(encoding:)`, the canonical text,
/// the parser and `decode(_:)`.
@Suite("Exact JSON numbers")
struct JSONNumberTests {
    /// A model with every kind of number a `Codable` type holds, and a string.
    struct Model: Codable, Equatable, Sendable {
        var id: Int64
        var count: UInt64
        var small: Int8
        var price: Decimal
        var ratio: Double
        var single: Float
        var name: String
        var tags: [String: Int32]
        var parts: [Double]
        var optional: UInt32?
    }

    /// The value as JSON text, parsed by Rewind, written canonically, parsed again and decoded.
    static func roundTrip<T: Codable>(_ value: T) throws -> T {
        let json = try JSONValue(encoding: value)
        let bytes = try json.jsonBytes()
        let reparsed = try JSONValue(jsonBytes: bytes)
        #expect(reparsed == json)
        #expect(try reparsed.jsonBytes() == bytes)  // canonical: the same bytes again
        return try reparsed.decode(T.self)
    }

    // MARK: Boundaries

    @Test(arguments: [
        Int64.min, Int64.min + 1, -(1 << 53) - 1, -1, 0, 1, (1 << 53) + 1, 1_234_567_890_123_456_789, .max,
    ])
    func everyInt64ComesBackExactly(_ value: Int64) throws {
        #expect(try Self.roundTrip(value) == value)
        #expect(try JSONValue(encoding: value) == .number(JSONNumber(value)))
        #expect(JSONNumber(value).int64Value == value)
        #expect(JSONNumber(value).text == String(value))
    }

    @Test(arguments: [UInt64(0), 1 << 53 + 1, UInt64(Int64.max) + 1, .max - 1, .max])
    func everyUInt64ComesBackExactly(_ value: UInt64) throws {
        #expect(try Self.roundTrip(value) == value)
        #expect(JSONNumber(value).uint64Value == value)
        #expect(JSONNumber(value).text == String(value))
    }

    @Test(arguments: [
        "3.14159265358979323846264338327", "-0.000000000000000000000000000000000000012345",
        "99999999999999999999999999999999999999", "0.1", "1234567.000001", "1e40", "-5e-30",
    ])
    func decimalsComeBackExactly(_ text: String) throws {
        let value = try #require(Decimal(string: text))
        #expect(try Self.roundTrip(value) == value)
        #expect(JSONNumber(value).decimalValue == value)
    }

    @Test(arguments: [
        0.1, 1.0 / 3, -0.0, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
        -1.7976931348623157e308,
        1e21, 1e-7, 123_456_789.123, 9_007_199_254_740_994, 1.152921504606847e18, 0.30000000000000004,
    ])
    func doublesComeBackExactlyInTheirShortestText(_ value: Double) throws {
        let back = try Self.roundTrip(value)
        #expect(back.bitPattern == value.bitPattern)
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        // An integral Double's shortest text that is an Int64 is written as that integer.
        let written = JSONNumber(value).text
        #expect(written == text || Int64(written).map { Double($0) == value } == true, "\(written) for \(text)")
    }

    @Test(arguments: [
        "", "e\u{301}", "é", "👩‍👩‍👧", "\u{0}\u{1F}\"\\/", "\u{2028}\u{2029}", "日本語", "\u{10FFFF}", "\u{FEFF}",
    ])
    func stringsComeBackExactly(_ value: String) throws {
        let back = try Self.roundTrip(value)
        #expect(Array(back.unicodeScalars) == Array(value.unicodeScalars))
    }

    @Test func theIssuesModelComesBackExactly() throws {
        struct Account: Codable, Equatable {
            var id: Int64
            var limit: UInt64
        }
        let account = Account(id: 1_234_567_890_123_456_789, limit: .max)
        let json = try JSONValue(encoding: account)
        #expect(try json.jsonBytes() == Array(#"{"id":1234567890123456789,"limit":18446744073709551615}"#.utf8))
        #expect(try json.decode(Account.self) == account)
    }

    // MARK: One value, one text

    @Test func equalNumbersAreEqualWhateverTheirText() throws {
        let texts: [[String]] = [
            ["1", "1.0", "1e0", "10e-1", "0.1e1", "1.000"],
            ["2.5", "25e-1", "0.25E+1"],
            ["100000000000000000000", "1e20", "1E+20"],
            ["-0", "-0.0", "-0e5"],
            ["0", "0.0", "0e-7"],
            ["18446744073709551615", "1.8446744073709551615e19"],
            ["3.14159265358979323846264338327", "314159265358979323846264338327e-29"],
        ]
        for group in texts {
            let numbers = try group.map { text in try #require(JSONNumber(text: text), "\(text)") }
            let parsed = try group.map { try JSONValue(jsonBytes: Array($0.utf8)) }
            for (number, value) in zip(numbers, parsed) {
                #expect(number == numbers[0], "\(number) ≠ \(numbers[0])")
                #expect(number.hashValue == numbers[0].hashValue)
                #expect(value == .number(numbers[0]))
            }
        }
        #expect(JSONNumber(text: "1") != JSONNumber(text: "1.0000000000000000000001"))
        #expect(JSONNumber(0.0) != JSONNumber(-0.0))
        #expect(JSONNumber(1.5) == JSONNumber(text: "1.5"))
        #expect(JSONNumber(Int64(5)) == JSONNumber(5.0))
    }

    @Test func canonicalTexts() throws {
        let cases: [(String, String)] = [
            ("1.0", "1"), ("1e2", "100"), ("-0.0", "-0"), ("0.1", "0.1"), ("1e20", "1e+20"),
            ("1e-7", "1e-07"), ("12345678901234567890123", "1.2345678901234567890123e+22"),
            ("0.00000000000000000000000000000000000000001234567890123456789", "1.234567890123456789e-41"),
            ("1.5e300", "1.5e+300"), ("123456789012345678.5", "123456789012345678.5"),
        ]
        for (input, canonical) in cases {
            let value = try JSONValue(jsonBytes: Array(input.utf8))
            #expect(String(decoding: try value.jsonBytes(), as: UTF8.self) == canonical, "\(input)")
        }
    }

    @Test func whatIsNoJSONNumberIsRefused() throws {
        for text in ["", "-", "01", "1.", ".5", "1e", "+1", "0x10", "1e+", "--1", "NaN", "Infinity", "1 "] {
            #expect(JSONNumber(text: text) == nil, "\(text)")
        }
        #expect(throws: JSONWriteError.self) { try JSONValue.number(.nan).jsonBytes() }
        #expect(throws: JSONWriteError.self) { try JSONValue.number(-Double.infinity).jsonBytes() }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: ["x": Double.nan]) }
        for text in ["1e400", "-1e309", "1e-400"] {
            #expect(throws: JSONParseError.self) { try JSONValue(jsonBytes: Array(text.utf8)) }
        }
    }

    @Test func accessorsAreExactOrNil() throws {
        let big = try #require(JSONNumber(text: "9223372036854775808"))
        #expect(big.int64Value == nil)
        #expect(big.uint64Value == 9_223_372_036_854_775_808)
        #expect(JSONNumber(-1).uint64Value == nil)
        #expect(JSONNumber(2.5).int64Value == nil)
        #expect(JSONNumber(2.5).isInteger == false)
        #expect(try #require(JSONNumber(text: "1e30")).isInteger)
        #expect(try #require(JSONNumber(text: "1e-30")).isInteger == false)
        let pi = try #require(JSONNumber(text: "3.14159265358979323846264338327"))
        #expect(pi.doubleValue == Double.pi)
        #expect(pi.decimalValue == Decimal(string: "3.14159265358979323846264338327"))
        let tooLong = try #require(JSONNumber(text: "1.2345678901234567890123456789012345678901"))
        #expect(tooLong.decimalValue == nil)
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(tooLong) }
    }

    @Test func decodingThroughACodableDecoderKeepsWhatItGives() throws {
        let text = #"[1234567890123456789, 18446744073709551615, 0.1, 3.14159265358979323846264338327, -0, 1e300, "s"]"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(value == (try JSONValue(jsonBytes: Array(text.utf8))))
        let encoded = try JSONEncoder().encode(value)
        #expect(try JSONValue(jsonBytes: encoded) == value)
    }

    /// Found by `ExactValuesTests.generatedValuesComeBackExactly` (seed
    /// 1e0NpWujOSzvwnuvelgbxmQRVgCXDe9r+JyfN1z0oNU=): `JSONDecoder` gives an `Int64` for a number
    /// with a fraction whose nearest `Double` is integral, and an archive import lost the fraction.
    @Test(arguments: [
        "4827137357017551.1939639394396", "-4827137357017551.5", "9007199254740993.25",
        "18446744073709551615.5", "12345678901234567.0001",
    ])
    func aFractionWhoseNearestDoubleIsIntegralStaysAFraction(_ text: String) throws {
        let decoded = try JSONDecoder().decode([JSONValue].self, from: Data("[\(text)]".utf8))
        #expect(JSONValue.array(decoded) == (try JSONValue(jsonBytes: Array("[\(text)]".utf8))))
        #expect(decoded.first?.numberValue?.int64Value == nil)
    }

    // MARK: Properties

    static let decimals = zip(Gen.number.string(of: 1...38), Gen.int(in: -40...40), Gen.bool)
        .compactMap { digits, exponent, negative in Decimal(string: "\(negative ? "-" : "")\(digits)e\(exponent)") }
    static let doubles = Gen<UInt64>.bitSet.map { Double(bitPattern: $0) }.filter(\.isFinite)
    static let strings = Gen.uint32(in: 0...0x10FFFF).compactMap { Unicode.Scalar($0) }.array(of: 0...12)
        .map { String(String.UnicodeScalarView($0)) }

    static let models = zip(
        zip(Gen.int64(), Gen.uint64(), Gen.int8(), decimals, doubles),
        zip(
            Gen<UInt32>.bitSet.map { Float(bitPattern: $0) }.filter(\.isFinite),
            strings,
            Gen.int32().array(of: 0...3).map { values in
                Dictionary(uniqueKeysWithValues: values.enumerated().map { ("k\($0.offset)", $0.element) })
            },
            doubles.array(of: 0...4),
            Gen.uint32().optional)
    ).map { numbers, rest in
        Model(
            id: numbers.0, count: numbers.1, small: numbers.2, price: numbers.3, ratio: numbers.4, single: rest.0,
            name: rest.1, tags: rest.2, parts: rest.3, optional: rest.4)
    }

    @Test func generatedModelsComeBackExactly() async {
        await propertyCheck(count: 400, input: Self.models) { model in
            do {
                #expect(try Self.roundTrip(model) == model)
                #expect(try JSONDecoder().decode(Model.self, from: try JSONValue(encoding: model).encoded()) == model)
            } catch {
                Issue.record(error, "\(model)")
            }
        }
    }
}
