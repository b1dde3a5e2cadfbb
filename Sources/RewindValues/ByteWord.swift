/// Tests of eight bytes at once, in a `UInt64` (SWAR): the JSON parser and writer look for the few
/// bytes a string treats specially eight at a time, and read byte by byte only around them.
///
/// Each test sets the high bit of every byte that passes it, and may also set it in a byte after
/// one that passes (a borrow carried up): "no high bit set" is exact, a set bit only says to look
/// at the bytes one by one.
@_spi(Internals) public enum ByteWord {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The eight bytes from `offset` on (any alignment).
    @inline(__always)
    static func load(_ base: UnsafePointer<UInt8>, at offset: Int) -> UInt64 {
        UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
    }

    /// Bytes equal to `byte`: a zero after the exclusive-or borrows into its high bit.
    @inline(__always)
    static func equal(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let difference = word ^ (ones &* UInt64(byte))
        return (difference &- ones) & ~difference & highs
    }

    /// Bytes below `bound` (at most 0x80): subtracting it borrows into their high bit; bytes with
    /// the high bit set are left out.
    @inline(__always)
    static func below(_ word: UInt64, _ bound: UInt8) -> UInt64 {
        (word &- ones &* UInt64(bound)) & ~word & highs
    }

    /// The bytes of a buffer shorter than eight in one word, read in two or three loads rather
    /// than byte by byte: every byte is in the word (some twice), and for one count different
    /// bytes give different words; 0 when empty. The tails of the package's short-key readers:
    /// the key table's hash, `UnsafeRawBufferPointer.equals`, the store's UTF-8 check.
    @inlinable @inline(__always)
    public static func short(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        if count >= 4 {
            return UInt64(bytes.loadUnaligned(as: UInt32.self))
                | UInt64(bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) << 32
        }
        guard count > 0 else { return 0 }
        return UInt64(bytes[0]) | UInt64(bytes[count >> 1]) << 8 | UInt64(bytes[count - 1]) << 16
    }

    /// Bytes that are not ASCII.
    @inline(__always)
    static func nonASCII(_ word: UInt64) -> UInt64 {
        word & highs
    }
}
