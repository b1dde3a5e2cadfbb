/// Why ``JSONValue/init(jsonBytes:)-(UnsafeRawBufferPointer)`` rejected a text: what was wrong
/// and at which byte.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong with the text.
    public enum Reason: Hashable, Sendable {
        /// The text ended inside a value (or was empty).
        case unexpectedEnd
        /// A byte that no JSON value, separator or closing bracket can start with here.
        case unexpectedByte(UInt8)
        /// A number that does not follow RFC 8259's grammar (`-`? int frac? exp?).
        case invalidNumber
        /// A well-formed number too large (or too small but not zero) for a `Double`.
        case numberOutOfRange
        /// A raw control character (below U+0020) inside a string: it must be escaped.
        case controlCharacterInString(UInt8)
        /// A backslash followed by something other than `"` `\` `/` `b` `f` `n` `r` `t` `u`.
        case invalidEscape(UInt8)
        /// `\u` not followed by four hexadecimal digits.
        case invalidUnicodeEscape
        /// A `\u` escape of a UTF-16 surrogate without its other half.
        case unpairedSurrogate
        /// Bytes that are not well-formed UTF-8.
        case invalidUTF8
        /// Arrays and objects nested deeper than the limit (a guard against hostile input).
        case tooDeep(limit: Int)
        /// Something other than whitespace after the top-level value.
        case trailingData
    }

    /// The offset of the offending byte from the start of the text.
    public var offset: Int
    /// What was wrong.
    public var reason: Reason

    /// Creates an error at `offset`.
    public init(offset: Int, reason: Reason) {
        self.offset = offset
        self.reason = reason
    }

    /// The reason and where, for example `invalid JSON at byte 12: unexpected byte 0x7D ('}')`.
    public var description: String {
        "invalid JSON at byte \(offset): \(reasonDescription)"
    }

    private var reasonDescription: String {
        switch reason {
        case .unexpectedEnd: "the text ends inside a value"
        case .unexpectedByte(let byte): "unexpected byte \(Self.show(byte))"
        case .invalidNumber: "malformed number"
        case .numberOutOfRange: "number out of the range of a Double"
        case .controlCharacterInString(let byte): "unescaped control character \(Self.show(byte)) in a string"
        case .invalidEscape(let byte): "invalid escape '\\' followed by \(Self.show(byte))"
        case .invalidUnicodeEscape: "\\u must be followed by four hexadecimal digits"
        case .unpairedSurrogate: "a UTF-16 surrogate escape without its other half"
        case .invalidUTF8: "malformed UTF-8"
        case .tooDeep(let limit): "arrays and objects nested deeper than \(limit) levels"
        case .trailingData: "data after the JSON value"
        }
    }

    private static func show(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        let code = "0x" + (hex.count < 2 ? "0" + hex : hex)
        guard byte >= 0x20, byte < 0x7F else { return code }
        return "\(code) ('\(Character(Unicode.Scalar(byte)))')"
    }
}

/// Why ``JSONValue/jsonBytes()`` could not write a value: JSON has no NaN or infinity.
public struct JSONWriteError: Error, Sendable, CustomStringConvertible {
    /// The number that cannot be written.
    public var number: Double
    /// Where it sits in the value: object keys and array indices from the root.
    public var path: [String]

    /// Creates an error for `number` at `path`.
    public init(number: Double, path: [String]) {
        self.number = number
        self.path = path
    }

    /// The number and where, for example `cannot write nan as JSON at items/2`.
    public var description: String {
        "cannot write \(number) as JSON at \(path.isEmpty ? "the root" : path.joined(separator: "/"))"
    }
}
