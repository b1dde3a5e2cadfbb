import Foundation
import RewindStore
import RewindValues
import Testing

@Suite("Payload coder")
struct PayloadCoderTests {
    struct Profile: Codable, Equatable {
        var name: String
        var age: Int
    }

    @Test func jsonCoderRoundTripsWithSortedKeys() throws {
        let coder = JSONPayloadCoder()
        let bytes = try coder.encode(Profile(name: "Ada", age: 36))
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"age":36,"name":"Ada"}"#)
        #expect(try coder.decode(Profile.self, from: bytes) == Profile(name: "Ada", age: 36))
    }

    @Test func payloadsEncodedThroughTheStoresCoderRoundTripThroughTheLog() throws {
        try withStore { store, _ throws in
            let profile = Profile(name: "Grace", age: 45)
            var transition = onboarding[0]
            transition.payload = try store.coder.encode(profile)
            try store.append([transition], to: try session("s"))
            let record = try #require(try store.record(at: 1))
            #expect(try store.coder.decode(Profile.self, from: record.payload) == profile)
        }
    }

    @Test func jsonValuePayloadsAreTheBytesJSONEncoderWrites() throws {
        let coder = JSONPayloadCoder()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let values: [JSONValue] = [
            nil, true, 0, -0.0, 36, 1.5, 1e16, 0.1, "a/b\"\n日本😀",
            ["z": [1, "x", nil], "a": ["k": false], "B": 2.5e-7, "a10": [], "a2": [:]],
        ]
        for value in values {
            let bytes = try coder.encode(value)
            #expect(bytes == Array(try encoder.encode(value)))
            #expect(try coder.decode(JSONValue.self, from: bytes) == value)
        }
    }

    @Test func stateDataDictionariesTakeTheFastPathWithTheSameBytes() throws {
        let coder = JSONPayloadCoder()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: [String: JSONValue] = ["detail": ["kanji": "日", "strokes": 4], "list": nil, "a/b": [1.5]]
        let bytes = try coder.encode(data)
        #expect(bytes == Array(try encoder.encode(data)))
        #expect(try coder.decode([String: JSONValue].self, from: bytes) == data)
        #expect(throws: DecodingError.self) { try coder.decode([String: JSONValue].self, from: Array("[1]".utf8)) }
    }

    @Test func malformedJSONValuePayloadsFailWithTheirOffset() throws {
        let coder = JSONPayloadCoder()
        #expect(throws: JSONParseError(offset: 6, reason: .unexpectedEnd)) {
            try coder.decode(JSONValue.self, from: Array(#"{"a":1"#.utf8))
        }
    }

    @Test func otherPayloadTypesStillGoThroughCodable() throws {
        let coder = JSONPayloadCoder()
        let optional: JSONValue? = nil
        #expect(try coder.encode(optional) == Array("null".utf8))
        #expect(try coder.decode(JSONValue?.self, from: Array("null".utf8)) == JSONValue?.none)
        #expect(try coder.decode([JSONValue].self, from: Array("[1,{}]".utf8)) == [1, [:]])
    }
}
