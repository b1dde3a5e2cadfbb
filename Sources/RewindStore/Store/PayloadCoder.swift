import Foundation
import RewindValues

/// Encodes the app's `Codable` values (event payloads, state data) into the bytes a record holds.
public protocol PayloadCoder: Sendable {
    /// The bytes of `value`.
    func encode<Value: Encodable>(_ value: Value) throws -> [UInt8]
    /// The value of type `type` encoded in `bytes`.
    func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value
}

/// The default ``PayloadCoder``: JSON with sorted keys (so equal values give equal bytes).
///
/// `JSONValue` payloads and `[String: JSONValue]` state data, the common cases, skip
/// `JSONEncoder`/`JSONDecoder`: they go through `JSONValue.jsonBytes()` and
/// `JSONValue(jsonBytes:)`, which write the same bytes and read the same values.
public struct JSONPayloadCoder: PayloadCoder {
    /// Creates the coder.
    public init() {}

    /// The JSON bytes of `value`.
    ///
    /// - Throws: `EncodingError` (or `JSONWriteError` for a `JSONValue`) when a number is NaN or
    ///   infinite.
    public func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        if Value.self == JSONValue.self, let value = value as? JSONValue {
            return try value.jsonBytes()
        }
        if Value.self == [String: JSONValue].self, let members = value as? [String: JSONValue] {
            return try JSONValue.object(members).jsonBytes()  // the state data of a record
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(value))
    }

    /// The value of type `type` in the JSON `bytes`.
    ///
    /// - Throws: `DecodingError` (or `JSONParseError` for a `JSONValue`) when the bytes are not
    ///   JSON of the shape of `type`.
    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        if type == JSONValue.self, let value = try JSONValue(jsonBytes: bytes) as? Value {
            return value
        }
        if type == [String: JSONValue].self, case .object(let members) = try JSONValue(jsonBytes: bytes),
            let value = members as? Value
        {
            return value
        }
        return try JSONDecoder().decode(type, from: Data(bytes))
    }
}
