/// Tests of eight bytes at once, in a `UInt64` (SWAR): the JSON parser and writer look for the few
/// bytes a string treats specially eight at a time, and read byte by byte only around them.
///
/// Each test sets the high bit of every byte that passes it, and may also set it in a byte after
/// one that passes (a borrow carried up): "no high bit set" is exact, a set bit only says to look
/// at the bytes one by one.
enum ByteWord {
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

    /// Bytes that are not ASCII.
    @inline(__always)
    static func nonASCII(_ word: UInt64) -> UInt64 {
        word & highs
    }
}
