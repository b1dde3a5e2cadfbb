import Foundation
import RewindValues
import Testing

/// `JSONValue?`: `nil` is absent, `.null` is a JSON `null` that is there.
struct KeyedDecodingContainerJSONValueTests {
    /// Reads `value` by the rule, and beside it as `decodeIfPresent` does.
    struct Member: Decodable {
        var value: JSONValue?
        var synthesized: JSONValue?

        enum CodingKeys: String, CodingKey { case value }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            value = try container.decodeJSONValueIfPresent(forKey: .value)
            synthesized = try container.decodeIfPresent(JSONValue.self, forKey: .value)
        }
    }

    /// A type with a synthesized `Codable`, the way an app writes one.
    struct Plain: Codable, Equatable {
        var value: JSONValue?
    }

    private func member(_ json: String) throws -> Member {
        try JSONDecoder().decode(Member.self, from: Data(json.utf8))
    }

    @Test func absentIsNilAndNullIsNull() throws {
        #expect(try member(#"{}"#).value == nil)
        #expect(try member(#"{"value":null}"#).value == .some(.null))
        #expect(try member(#"{"value":[1,null]}"#).value == .some([1, nil]))
    }

    /// The pitfall the rule is for: `decodeIfPresent` reads `null` as absent, although
    /// `encodeIfPresent` wrote `.null` as `null`.
    @Test func decodeIfPresentReadsNullAsAbsent() throws {
        #expect(try member(#"{"value":null}"#).synthesized == nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: try encoder.encode(Plain(value: .null)), as: UTF8.self) == #"{"value":null}"#)
        #expect(String(decoding: try encoder.encode(Plain(value: nil)), as: UTF8.self) == #"{}"#)
        #expect(try JSONDecoder().decode(Plain.self, from: Data(#"{"value":null}"#.utf8)) == Plain(value: nil))
    }
}
