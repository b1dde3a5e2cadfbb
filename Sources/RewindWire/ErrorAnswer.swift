/// The body of every error answer of the fleet server: `{"error": message, …details}`.
///
/// Details say where a problem is (`recordIndex`, `sequence`, `offset`) or what to do next
/// (`nextSequence` on a 409); they are keys of the body beside `error`.
public struct ErrorAnswer: Codable, Sendable, Hashable {
    /// A detail's value.
    public enum Detail: Codable, Sendable, Hashable {
        /// A number.
        case integer(Int64)
        /// A text.
        case text(String)

        /// Decodes a number or a text.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Int64.self) {
                self = .integer(value)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        /// Encodes the bare value.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .integer(let value): try container.encode(value)
            case .text(let value): try container.encode(value)
            }
        }
    }

    /// What was wrong, for a person.
    public var error: String
    /// Machine-readable details (never a key `error`).
    public var details: [String: Detail]

    /// An answer from its parts; a detail named `error` is dropped (the message is the `error`).
    public init(error: String, details: [String: Detail] = [:]) {
        self.error = error
        self.details = details.filter { $0.key != Key.error.stringValue }
    }

    /// The integer detail `name`, if the answer has one.
    public func integer(_ name: String) -> Int64? {
        if case .integer(let value)? = details[name] { return value }
        return nil
    }

    /// Decodes `error` and every other key whose value is a number or a text as a detail.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        error = try container.decode(String.self, forKey: .error)
        var details: [String: Detail] = [:]
        for key in container.allKeys where key != .error {
            if let detail = try? container.decode(Detail.self, forKey: key) { details[key.stringValue] = detail }
        }
        self.details = details
    }

    /// Encodes the details and `error` as keys of one object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, detail) in details where name != Key.error.stringValue {
            try container.encode(detail, forKey: Key(name))
        }
        try container.encode(error, forKey: .error)
    }

    /// A key of the body.
    private struct Key: CodingKey, Hashable {
        static let error = Key("error")

        var stringValue: String
        var intValue: Int? { nil }

        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
