/// Reading an optional ``JSONValue`` member by the one rule of `JSONValue?`: `nil` is a value
/// that is absent (the key left out), ``JSONValue/null`` is the JSON `null` that is there.
///
/// Writing already follows the rule: `encodeIfPresent` (and a synthesized `Encodable`) leaves a
/// `nil` member out and writes `.null` as `null`. Reading does not by itself: `decodeIfPresent`
/// (and so a synthesized `Decodable` with a `JSONValue?` member) returns `nil` for a `null`, so a
/// `.null` that was written reads back as `nil`. Types whose `JSONValue?` members must read back
/// as written decode them with ``decodeJSONValueIfPresent(forKey:)``.
extension KeyedDecodingContainer {
    /// The JSON value under `key`: `nil` only when the key is absent; a JSON `null` is
    /// ``JSONValue/null``.
    ///
    /// - Throws: `DecodingError` when the value under `key` is not JSON the decoder can read.
    public func decodeJSONValueIfPresent(forKey key: Key) throws -> JSONValue? {
        guard contains(key) else { return nil }
        return try decode(JSONValue.self, forKey: key)
    }
}
