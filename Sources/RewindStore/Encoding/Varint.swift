/// Unsigned LEB128 varints (1–10 bytes, seven bits a byte, least significant first, the high bit
/// set on every byte but the last): the one encoder and decoder of every varint Rewind writes —
/// record fields, session entries, and the built-in projections' states and checkpoints.
///
/// The encoder writes the shortest encoding; the decoder accepts only that (a last byte of zero
/// after the first is a second encoding of the same value, which would decode to a record that
/// re-encodes to other bytes) and never reads past the buffer or traps on bad input.
package enum Varint {
    /// The most bytes a varint of a `UInt64` takes.
    package static let maximumByteCount = 10

    /// Why bytes are not a varint.
    package enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The buffer ends inside the varint: the byte at `offset` is missing.
        case truncated(offset: Int)
        /// The varint starting at `offset` holds more than 64 bits.
        case overflow(offset: Int)
        /// The varint starting at `offset` ends with a redundant zero byte (not minimally encoded).
        case notMinimal(offset: Int)

        /// What was wrong, and at which byte.
        package var description: String {
            switch self {
            case .truncated(let offset): return "truncated varint: byte \(offset) is missing"
            case .overflow(let offset): return "the varint at byte \(offset) overflows 64 bits"
            case .notMinimal(let offset):
                return "the varint at byte \(offset) has a redundant zero byte (not minimally encoded)"
            }
        }
    }

    /// Appends `value`'s encoding to `bytes`.
    @inline(__always)
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        bytes.putVarint(value)
    }

    /// Reads the varint at `offset` in `buffer` and moves `offset` past it.
    ///
    /// - Throws: ``Failure`` when the buffer ends inside it, it overflows 64 bits or it is not
    ///   minimally encoded; `offset` is then unchanged.
    @inline(__always)
    package static func read(_ buffer: UnsafeRawBufferPointer, at offset: inout Int) throws(Failure) -> UInt64 {
        // Most varints (lengths, counts) are one byte.
        if offset >= 0, offset < buffer.count, buffer[offset] < 0x80 {
            defer { offset += 1 }
            return UInt64(buffer[offset])
        }
        return try readMultiByte(buffer, at: &offset)
    }

    private static func readMultiByte(_ buffer: UnsafeRawBufferPointer, at offset: inout Int) throws(Failure) -> UInt64
    {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var position = offset
        while true {
            guard position >= 0, position < buffer.count else { throw .truncated(offset: position) }
            let byte = buffer[position]
            // The tenth byte holds bit 63 alone, and ends the varint.
            if shift == 63 && byte > 1 { throw .overflow(offset: offset) }
            result |= UInt64(byte & 0x7F) << shift
            position += 1
            if byte & 0x80 == 0 {
                if byte == 0 && shift > 0 { throw .notMinimal(offset: offset) }
                offset = position
                return result
            }
            shift += 7
        }
    }
}

extension ByteSink {
    /// Puts `value` as an unsigned LEB128 varint (1–10 bytes, the shortest encoding): see ``Varint``.
    @inline(__always)
    mutating func putVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            put(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        put(UInt8(truncatingIfNeeded: value))
    }
}
