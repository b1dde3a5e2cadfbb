/// A coding key for any string, so the interchange `Codable` conformances can write tagged
/// enums (`{"push": {...}}`) and refuse keys they do not know.
struct InterchangeCodingKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ stringValue: String) {
        self.stringValue = stringValue
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}

extension InterchangeCodingKey: ExpressibleByStringLiteral {
    init(stringLiteral value: String) {
        self.stringValue = value
    }
}

extension KeyedDecodingContainer where Key == InterchangeCodingKey {
    /// Throws `DecodingError.dataCorrupted` when the object has a key outside `known`: the
    /// document is versioned, so an unknown key means a malformed document or a newer format,
    /// never something to drop silently.
    func rejectUnknownKeys(_ known: Set<String>) throws {
        for key in allKeys where !known.contains(key.stringValue) {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath + [key],
                    debugDescription:
                        "unknown key '\(key.stringValue)' (expected one of: \(known.sorted().joined(separator: ", ")))"
                )
            )
        }
    }

    /// The single key of a tagged-enum object (`{"named": "x"}`), which must be one of `cases`.
    func singleCase(of cases: Set<String>, for type: String) throws -> InterchangeCodingKey {
        guard allKeys.count == 1, let key = allKeys.first, cases.contains(key.stringValue) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "a \(type) must be an object with exactly one of the keys "
                        + cases.sorted().joined(separator: ", ")
                        + "; found \(allKeys.map(\.stringValue).sorted())"
                )
            )
        }
        return key
    }

    /// Decodes an array that may be absent (absent means empty).
    func decodeList<Element: Decodable>(_ type: [Element].Type, forKey key: InterchangeCodingKey) throws -> [Element] {
        try decodeIfPresent(type, forKey: key) ?? []
    }
}

extension KeyedEncodingContainer where Key == InterchangeCodingKey {
    /// Encodes an array unless it is empty (its default).
    mutating func encodeList<Element: Encodable>(_ list: [Element], forKey key: InterchangeCodingKey) throws {
        if !list.isEmpty { try encode(list, forKey: key) }
    }
}
