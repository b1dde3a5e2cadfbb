/// Helpers for the byte keys of the store's databases. Integers in keys are big-endian so that
/// LMDB's lexicographic key order is numeric order.
package enum StoreKey {
    /// The 8-byte big-endian key of `value`.
    public static func uint64(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// The value of an 8-byte big-endian key, or `nil` when `key` is not 8 bytes long.
    public static func uint64(from key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == 8 else { return nil }
        return UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
    }

    /// The value of an 8-byte big-endian key, or `nil` when `key` is not 8 bytes long.
    public static func uint64(from key: [UInt8]) -> UInt64? {
        key.withUnsafeBytes { uint64(from: $0) }
    }

    /// The compound key of `string` and `number`: the string's UTF-8 bytes, a NUL byte, then the
    /// number as 8 big-endian bytes. Keys of one string sort together, by number. `string` must
    /// not contain NUL (session ids never do).
    public static func compound(_ string: String, _ number: UInt64) -> [UInt8] {
        var key: [UInt8] = []
        appendCompound(string, number, to: &key)
        return key
    }

    /// The prefix shared by every ``compound(_:_:)`` key of `string` (its UTF-8 bytes and a NUL).
    public static func compoundPrefix(_ string: String) -> [UInt8] {
        var key = Array(string.utf8)
        key.append(0)
        return key
    }

    /// Splits a ``compound(_:_:)`` key into its string and number, or `nil` when it is not one.
    public static func splitCompound(_ key: UnsafeRawBufferPointer) -> (string: String, number: UInt64)? {
        guard key.count >= 9, key[key.count - 9] == 0 else { return nil }
        let text = UnsafeRawBufferPointer(rebasing: key[..<(key.count - 9)])
        guard !text.contains(0) else { return nil }
        let number = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self))
        return (String(decoding: text, as: UTF8.self), number)
    }

    /// Splits a ``compound(_:_:)`` key into its string and number, or `nil` when it is not one.
    public static func splitCompound(_ key: [UInt8]) -> (string: String, number: UInt64)? {
        key.withUnsafeBytes { splitCompound($0) }
    }

    @inline(__always)
    static func appendCompound(_ string: String, _ number: UInt64, to key: inout [UInt8]) {
        key.append(contentsOf: string.utf8)
        key.append(0)
        key.putBigEndian(number)
    }
}
