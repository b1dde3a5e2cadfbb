import Foundation

/// Encodes the app's `Codable` values (event payloads, state data) into the bytes a record holds.
public protocol PayloadCoder: Sendable {
    /// The bytes of `value`.
    func encode<Value: Encodable>(_ value: Value) throws -> [UInt8]
    /// The value of type `type` encoded in `bytes`.
    func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value
}

/// The default ``PayloadCoder``: JSON with sorted keys (so equal values give equal bytes).
public struct JSONPayloadCoder: PayloadCoder {
    /// Creates the coder.
    public init() {}

    /// The JSON bytes of `value`.
    public func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(value))
    }

    /// The value of type `type` in the JSON `bytes`.
    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}
