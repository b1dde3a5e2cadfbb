/// Primitive writers of the binary formats (records, session entries, keys). All integers are
/// little-endian except keys, which are big-endian so that LMDB's byte order is numeric order.
extension Array where Element == UInt8 {
    /// Appends `value` as an unsigned LEB128 varint (1–10 bytes).
    @inline(__always)
    mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(truncatingIfNeeded: value))
    }

    /// Appends `value` as 8 little-endian bytes.
    @inline(__always)
    mutating func appendLittleEndian(_ value: Int64) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// Appends `value` as 4 little-endian bytes.
    @inline(__always)
    mutating func appendLittleEndian(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// Appends `value` as 8 big-endian bytes.
    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    /// Appends a varint byte count, then the string's UTF-8 bytes.
    @inline(__always)
    mutating func appendString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count))
            append(contentsOf: utf8)
        }
    }

    /// Appends a varint byte count, then the bytes.
    @inline(__always)
    mutating func appendBytes(_ bytes: [UInt8]) {
        appendVarint(UInt64(bytes.count))
        append(contentsOf: bytes)
    }
}
