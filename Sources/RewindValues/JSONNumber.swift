import Foundation

/// A JSON number, kept exactly: the number of a ``JSONValue``.
///
/// A JSON text writes a number in decimal, and a `Codable` model may hold any `Int64`, `UInt64`,
/// `Decimal` or `Double`. A `Double` alone would round integers beyond 2^53 and decimals with more
/// than 15–17 significant digits, so `JSONNumber` keeps the value the text or the model gave:
///
/// - integers in the range of `Int64` or `UInt64` as those integers;
/// - numbers that a `Double` writes exactly (its shortest round-trip text is the same decimal
///   value) as that `Double`;
/// - any other number as its decimal text (for example a `Decimal` with 30 digits).
///
/// A number is its decimal value: `1`, `1.0` and `1e0` are the same number, and so are
/// `JSONNumber(2.5)` and `JSONNumber(text: "25e-1")`. Each value has one canonical text
/// (``text``), which ``JSONValue/jsonBytes()`` writes: integers in plain digits, numbers held as a
/// `Double` as Swift prints that `Double` (without a trailing `.0`, as `JSONEncoder` writes them),
/// other numbers in plain or exponent notation. `-0` is kept apart from `0`, as the IEEE `Double`
/// `-0.0` is.
///
/// NaN and the infinities are not JSON numbers: ``init(_:)-(Double)`` keeps them so that writing
/// the value fails with ``JSONWriteError`` (the payload is refused, nothing is written), rather
/// than changing them silently.
public struct JSONNumber: Hashable, Sendable {
    /// How the value is held: each value in exactly one way, so that equality is synthesized.
    enum Storage: Hashable, Sendable {
        /// An integer in the range of `Int64`.
        case integer(Int64)
        /// An integer above `Int64.max`, in the range of `UInt64`.
        case unsigned(UInt64)
        /// A number whose value is that of the `Double`'s shortest round-trip text, and which is
        /// no integer in the range above (or NaN, an infinity, or `-0.0`).
        case double(Double)
        /// Any other number: its canonical decimal text.
        case decimal(String)
    }

    let storage: Storage

    init(storage: Storage) {
        self.storage = storage
    }

    /// The number `value`.
    public init(_ value: Int64) {
        storage = .integer(value)
    }

    /// The number `value`.
    public init(_ value: Int) {
        storage = .integer(Int64(value))
    }

    /// The number `value`.
    public init(_ value: UInt64) {
        if let integer = Int64(exactly: value) { storage = .integer(integer) } else { storage = .unsigned(value) }
    }

    /// The integer `value`, whatever its type (`Int32`, `UInt8`, `Int128`, …).
    public init(_ value: some BinaryInteger) {
        if let integer = Int64(exactly: value) {
            storage = .integer(integer)
        } else if let unsigned = UInt64(exactly: value) {
            storage = .unsigned(unsigned)
        } else {
            storage = DecimalDigits(integer: value).storage
        }
    }

    /// The number that `value`'s shortest round-trip text (Swift's `description`) stands for.
    ///
    /// NaN and the infinities are kept as they are; ``JSONValue/jsonBytes()`` refuses to write
    /// them with ``JSONWriteError``.
    public init(_ value: Double) {
        guard value.isFinite else {
            storage = .double(value)
            return
        }
        if value == 0 {
            storage = value.sign == .minus ? .double(-0.0) : .integer(0)
        } else if value.rounded(.towardZero) != value {
            storage = .double(value)  // a fraction: its shortest text is no integer
        } else if value.magnitude <= JSONNumber.largestExactDoubleInteger {
            storage = .integer(Int64(value))
        } else {
            // An integer beyond 2^53: the value of its shortest text may be an integer that
            // `Int64` or `UInt64` holds (and is then that integer), or a larger one.
            storage = DecimalDigits(finiteDoubleText: value.description).storage
        }
    }

    /// The number that `value`'s shortest round-trip text stands for (`Float(0.1)` is `0.1`).
    public init(_ value: Float) {
        guard value.isFinite else {
            storage = .double(Double(value))
            return
        }
        storage = DecimalDigits(finiteDoubleText: value.description).storage
    }

    /// The number `value`, exactly.
    public init(_ value: Decimal) {
        guard !value.isNaN else {
            storage = .double(.nan)
            return
        }
        self = JSONNumber(text: value.description) ?? JSONNumber(storage: .double(.nan))
    }

    /// The number a JSON number text (RFC 8259 §6, such as `-12.5e3`) stands for, exactly; `nil`
    /// when `text` is not a JSON number.
    public init?(text: some StringProtocol) {
        var text = String(text)
        let parsed = text.withUTF8 { bytes -> DecimalDigits? in
            DecimalDigits(jsonNumberText: bytes)
        }
        guard let parsed else { return nil }
        storage = parsed.storage
    }

    /// The largest integer magnitude up to which every integer is a `Double`: 2^53.
    static let largestExactDoubleInteger: Double = 9_007_199_254_740_992

    // MARK: Reading

    /// The canonical text of the number (see the type's overview); `"nan"`, `"inf"` or `"-inf"`
    /// for the values that are no JSON number.
    public var text: String {
        var bytes: [UInt8] = []
        writeText(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The integer, when the number is an integer in the range of `Int64`.
    public var int64Value: Int64? {
        if case .integer(let value) = storage { return value }
        return nil
    }

    /// The integer, when the number is an integer in the range of `Int`.
    public var intValue: Int? {
        int64Value.flatMap { Int(exactly: $0) }
    }

    /// The integer, when the number is an integer in the range of `UInt64`.
    public var uint64Value: UInt64? {
        switch storage {
        case .integer(let value): return UInt64(exactly: value)
        case .unsigned(let value): return value
        case .double, .decimal: return nil
        }
    }

    /// The `Double` nearest the number (exact when the number is held as a `Double` or is an
    /// integer of at most 2^53 in magnitude).
    public var doubleValue: Double {
        switch storage {
        case .integer(let value): return Double(value)
        case .unsigned(let value): return Double(value)
        case .double(let value): return value
        case .decimal(let text): return Double(text) ?? .nan
        }
    }

    /// The number as a `Decimal`, when a `Decimal` holds it exactly (at most 38 significant
    /// digits, an exponent in its range).
    public var decimalValue: Decimal? {
        var digits: DecimalDigits
        switch storage {
        case .integer(let value): return Decimal(value)
        case .unsigned(let value): return Decimal(value)
        case .double(let value):
            guard value.isFinite else { return nil }
            digits = DecimalDigits(finiteDoubleText: value.description)
        case .decimal(let text):
            var text = text
            guard let parsed = text.withUTF8({ DecimalDigits(jsonNumberText: $0) }) else { return nil }
            digits = parsed
        }
        guard digits.digits.count <= 38, (-128...127).contains(digits.exponent) else { return nil }
        return Decimal(string: digits.canonicalText)
    }

    /// Whether the number is an integer (in any range).
    public var isInteger: Bool {
        switch storage {
        case .integer, .unsigned: return true
        case .double(let value): return value.isFinite && value.rounded(.towardZero) == value
        case .decimal(let text):
            var text = text
            return text.withUTF8 { DecimalDigits(jsonNumberText: $0) }.map { $0.exponent >= 0 } ?? false
        }
    }

    /// Appends the canonical text. NaN and the infinities are written as Swift prints them; the
    /// JSON writer refuses them before it gets here.
    package func writeText(into bytes: inout [UInt8]) {
        switch storage {
        case .integer(let value):
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            JSONText.writeDigits(value.magnitude, into: &bytes)
        case .unsigned(let value):
            JSONText.writeDigits(value, into: &bytes)
        case .double(let value):
            if value == 0 {
                bytes.append(contentsOf: value.sign == .minus ? Array("-0".utf8) : [UInt8(ascii: "0")])
                return
            }
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            bytes.append(contentsOf: text.utf8)
        case .decimal(let text):
            bytes.append(contentsOf: text.utf8)
        }
    }

    /// Whether the number can be written as JSON (it is neither NaN nor infinite).
    var isFinite: Bool {
        if case .double(let value) = storage { return value.isFinite }
        return true
    }
}

extension JSONNumber: CustomStringConvertible {
    /// The canonical text (``text``).
    public var description: String { text }
}

extension JSONNumber: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// The integer `value`.
    public init(integerLiteral value: Int64) {
        self.init(value)
    }

    /// The number the literal's `Double` stands for (see ``init(_:)-(Double)``).
    public init(floatLiteral value: Double) {
        self.init(value)
    }
}

extension JSONNumber: Codable {
    /// Decodes a number as exactly as the decoder gives it: an `Int64`, else a `UInt64`, else a
    /// `Double` — or a `Decimal` when the decoder gives one that the `Double` rounds
    /// (`JSONDecoder` reads `3.14159265358979323846` exactly as a `Decimal`).
    ///
    /// Bytes known to be JSON are read exactly and faster by ``JSONValue/init(jsonBytes:)-(UnsafeRawBufferPointer)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // A decoder may give an integer for a number with a fraction whose nearest `Double` is
        // integral (Foundation's `JSONDecoder` reads `4827137357017551.19` as the `Int64`
        // 4827137357017551): an integer only when the number's exact value (`Decimal`) is one.
        func isExactly(_ integer: Decimal) -> Bool {
            guard let exact = try? container.decode(Decimal.self) else { return true }
            return exact == integer
        }
        if let value = try? container.decode(Int64.self), isExactly(Decimal(value)) {
            // `-0` decodes as the integer 0; keep its sign, as the parser does.
            if value == 0, let double = try? container.decode(Double.self), double.sign == .minus {
                self.init(-0.0)
            } else {
                self.init(value)
            }
        } else if let value = try? container.decode(UInt64.self), isExactly(Decimal(value)) {
            self.init(value)
        } else {
            let double = try container.decode(Double.self)
            let nearest = JSONNumber(double)
            if let decimal = try? container.decode(Decimal.self) {
                let exact = JSONNumber(decimal)
                if exact != nearest, exact.doubleValue == double {
                    self = exact
                    return
                }
            }
            self = nearest
        }
    }

    /// Encodes the number as an `Int64`, a `UInt64`, a `Double` or a `Decimal`, whichever holds it
    /// exactly.
    ///
    /// - Throws: `EncodingError.invalidValue` for a decimal that no `Decimal` holds exactly (more
    ///   than 38 significant digits, or an exponent beyond ±128): an `Encoder` offers no exact
    ///   way to write it. ``JSONValue/jsonBytes()`` writes every number exactly.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch storage {
        case .integer(let value): try container.encode(value)
        case .unsigned(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .decimal(let text):
            guard let decimal = decimalValue else {
                throw EncodingError.invalidValue(
                    self,
                    EncodingError.Context(
                        codingPath: encoder.codingPath,
                        debugDescription: "the number \(text) has more digits than a Decimal holds exactly"))
            }
            try container.encode(decimal)
        }
    }
}
