import Foundation

/// A JSON-like value: the type of event payloads, state data and the machine's context.
///
/// Values are plain data so that the log can store them as bytes and a replay can compare them
/// structurally. Objects keep their keys in a dictionary; ``encoded()`` writes them with sorted keys,
/// so the same value always produces the same bytes.
///
/// ## Absent and null
///
/// `JSONValue` is expressible by `nil` (`let value: JSONValue = nil` is ``null``), but in a
/// `JSONValue?` the two stay apart, everywhere in Rewind: `nil` is a value that is absent (an
/// object member that is not there, a record without payload bytes, a diff's `before` of an added
/// value), ``null`` is a JSON `null` that is there. A `JSONValue?` member of a `Codable` type is
/// written that way by `encodeIfPresent` (left out, or `null`) but read back by `decodeIfPresent`
/// as `nil` either way; decode it with
/// `KeyedDecodingContainer/decodeJSONValueIfPresent(forKey:)`, which keeps them apart.
public enum JSONValue: Hashable, Sendable {
    /// JSON `null`.
    case null
    /// A boolean.
    case bool(Bool)
    /// A number, kept exactly: integers as integers, other numbers as the decimal value their text
    /// or their `Double` stands for (see ``JSONNumber``).
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array of values.
    case array([JSONValue])
    /// An object: string keys to values.
    case object([String: JSONValue])

    /// Whether this value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member `key` of an object, or `nil` when this is not an object or has no such member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard case .object(let members) = self else { return nil }
            return members[key]
        }
        set {
            guard case .object(var members) = self else {
                if let newValue { self = .object([key: newValue]) }
                return
            }
            members[key] = newValue
            self = .object(members)
        }
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, when this is a number.
    public var numberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The `Double` nearest the number, when this is a number (see ``JSONNumber/doubleValue``).
    public var doubleValue: Double? {
        numberValue?.doubleValue
    }

    /// The integer, when this is a number that is an integer in the range of `Int64`.
    public var int64Value: Int64? {
        numberValue?.int64Value
    }

    /// The integer, when this is a number that is an integer in the range of `Int`.
    public var intValue: Int? {
        numberValue?.intValue
    }

    /// The number `value` (see ``JSONNumber/init(_:)-(Double)``).
    public static func number(_ value: Double) -> JSONValue {
        .number(JSONNumber(value))
    }

    /// The integer `value`, exactly.
    public static func number(_ value: some BinaryInteger) -> JSONValue {
        .number(JSONNumber(value))
    }

    /// The boolean, when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }
}

extension JSONValue: Codable {
    /// Decodes any JSON value.
    ///
    /// `Decoder` cannot say what kind of value comes next, so each kind is tried in turn and every
    /// mismatch costs a thrown and caught error: scalars first (a `Bool` before a number before a
    /// `String`, which keeps lenient decoders right), then objects, then arrays. Numbers are read
    /// as exactly as the decoder gives them (``JSONNumber/init(from:)``). Bytes known to be
    /// JSON are much faster through ``init(jsonBytes:)-(UnsafeRawBufferPointer)``, which throws
    /// nothing on valid input; the payload coder and snapshots use it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(JSONNumber.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Not a JSON value")
        }
    }

    /// Encodes the value as the JSON it stands for.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// Converts any `Encodable` value (a model, a kanji, a word) into a `JSONValue`.
    ///
    /// - Throws: `EncodingError` when the value cannot be encoded.
    public init(encoding value: some Encodable) throws {
        if let value = value as? JSONValue {
            self = value
            return
        }
        self = try JSONValue(jsonBytes: try JSONEncoder().encode(value))
    }

    /// Decodes this value as `type` (for example the model carried by `.ready(model)`).
    ///
    /// - Throws: `DecodingError` when the value does not have the shape of `type`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        if T.self == JSONValue.self, let value = self as? T { return value }
        return try JSONDecoder().decode(type, from: encoded())
    }

    /// The value's JSON bytes, with object keys sorted: equal values give equal bytes (those of
    /// `JSONEncoder` with `.sortedKeys`; see ``jsonBytes()``).
    ///
    /// - Throws: ``JSONWriteError`` when a number is NaN or infinite.
    public func encoded() throws -> Data {
        Data(try jsonBytes())
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// Creates `null`.
    public init(nilLiteral: ()) { self = .null }
    /// Creates a boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Creates an integer.
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    /// Creates the number the literal's `Double` stands for.
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    /// Creates a string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates an array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Creates an object.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
