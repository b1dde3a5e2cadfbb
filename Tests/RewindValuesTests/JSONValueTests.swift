import Foundation
import Testing

@testable import RewindValues

struct JSONValueTests {
    struct Sample: Codable, Equatable {
        var name: String
        var count: Int
        var tags: [String]
    }

    @Test func encodableValuesRoundTripThroughJSONValue() throws {
        let sample = Sample(name: "日本", count: 3, tags: ["a", "b"])
        let value = try JSONValue(encoding: sample)
        #expect(value["name"] == .string("日本"))
        #expect(value["count"] == .number(3))
        #expect(try value.decode(Sample.self) == sample)
    }

    @Test func encodingIsStableWhateverTheInsertionOrder() throws {
        var first: JSONValue = [:]
        first["b"] = 1
        first["a"] = [true, nil, "x"]
        var second: JSONValue = [:]
        second["a"] = [true, nil, "x"]
        second["b"] = 1
        #expect(try first.encoded() == second.encoded())
        #expect(String(decoding: try first.encoded(), as: UTF8.self) == #"{"a":[true,null,"x"],"b":1}"#)
    }

    @Test func decodingAllKindsOfValues() throws {
        let json = #"{"n":null,"b":false,"x":1.5,"s":"t","a":[1],"o":{"k":"v"}}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        #expect(value["n"] == .null)
        #expect(value["b"]?.boolValue == false)
        #expect(value["x"]?.doubleValue == 1.5)
        #expect(value["s"]?.stringValue == "t")
        #expect(value["a"] == [1])
        #expect(value["o"]?["k"] == "v")
    }

    @Test func decodingTheWrongShapeThrows() throws {
        let value: JSONValue = ["name": 1]
        #expect(throws: DecodingError.self) { try value.decode(Sample.self) }
    }
}
