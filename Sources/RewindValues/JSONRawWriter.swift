/// Writes JSON text into memory sized for it beforehand: the package's one writer of a string's
/// escapes and of decimal digits (``JSONText``'s writers into a byte array go through it).
///
/// A write checks only that it stays inside the memory, a comparison: a byte array's `append`
/// checks its uniqueness and capacity and goes through `Sequence` for every piece. A session's
/// export writes a record's line in a few pieces this way, about 60 appends a line to a byte
/// array before (Benchmarks/HISTORY.md, "An export written from the stored bytes").
package struct JSONRawWriter {
    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    @usableFromInline let capacity: Int
    /// The number of bytes written so far.
    @usableFromInline package internal(set) var count = 0

    /// A writer into `memory`, which has room for everything that will be written.
    package init(_ memory: UnsafeMutableRawBufferPointer) {
        guard let address = memory.baseAddress else { preconditionFailure("a JSON writer needs room to write into") }
        base = address.bindMemory(to: UInt8.self, capacity: memory.count)
        capacity = memory.count
    }

    /// The bytes written so far.
    package var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Starts over at the beginning of the memory.
    @inlinable @inline(__always)
    package mutating func removeAll() { count = 0 }

    /// The most bytes ``writeString(utf8:escapingSlashes:)`` writes for `count` bytes of UTF-8:
    /// each may become a six-byte `\u00XX`, and two quotes.
    @inline(__always)
    package static func stringBound(utf8Count count: Int) -> Int { count * 6 + 2 }

    /// The most bytes ``writeDigits(_:)`` and a sign write.
    package static let integerBound = 21

    /// Writes `byte`.
    @inlinable @inline(__always)
    package mutating func put(_ byte: UInt8) {
        precondition(count < capacity, "JSON text written past the room made for it")
        base[count] = byte
        count += 1
    }

    /// Writes `bytes`.
    @inlinable @inline(__always)
    package mutating func put(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(bytes.count <= capacity - count, "JSON text written past the room made for it")
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Writes `text` (a member's name with its punctuation, `#","event":"#`).
    @inlinable @inline(__always)
    package mutating func put(_ text: StaticString) {
        put(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends the decimal digits of `value`.
    package mutating func writeDigits(_ value: UInt64) {
        // Two digits at a time from the end, into a buffer on the stack, then copied.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: up to 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            var rest = value
            let pairs = Self.pairs.utf8Start
            while rest >= 100 {
                let pair = Int(truncatingIfNeeded: rest % 100)
                rest /= 100
                position -= 2
                buffer[position] = pairs[pair &* 2]
                buffer[position + 1] = pairs[pair &* 2 + 1]
            }
            if rest >= 10 {
                let pair = Int(truncatingIfNeeded: rest)
                position -= 2
                buffer[position] = pairs[pair &* 2]
                buffer[position + 1] = pairs[pair &* 2 + 1]
            } else {
                position -= 1
                buffer[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
            }
            put(UnsafeRawBufferPointer(rebasing: buffer[position...]))
        }
    }

    /// "00" to "99", the two digits of each number below 100.
    private static let pairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Writes the string whose UTF-8 (valid) is `utf8` as a string literal with `JSONEncoder`'s
    /// escapes: `\"`, `\\`, `\/` (`/` as is when `escapingSlashes` is false, as with
    /// `.withoutEscapingSlashes`), `\b`, `\f`, `\n`, `\r`, `\t`, `\u00XX` (lowercase hex) for other
    /// control characters; all else as UTF-8. Needs room for ``stringBound(utf8Count:)`` bytes.
    package mutating func writeString(utf8: UnsafeRawBufferPointer, escapingSlashes: Bool) {
        precondition(
            Self.stringBound(utf8Count: utf8.count) <= capacity - count, "JSON text written past the room made for it")
        base[count] = 0x22  // "
        count += 1
        defer {
            base[count] = 0x22
            count += 1
        }
        guard let source = utf8.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let length = utf8.count
        // Bytes below 0x20, `"` (0x22), `/` (0x2F, unless told not to) and `\` (0x5C) are escaped.
        @inline(__always) func needsEscape(_ byte: UInt8) -> Bool {
            byte < 0x20 || byte == 0x22 || (byte == 0x2F && escapingSlashes) || byte == 0x5C
        }
        var runStart = 0
        var index = 0
        while index < length {
            // Eight bytes at a time while none of them may need an escape, then byte by byte up
            // to the next one that does.
            @inline(__always) func special(_ word: UInt64) -> UInt64 {
                ByteWord.equal(word, 0x22) | ByteWord.equal(word, 0x5C) | ByteWord.below(word, 0x20)
                    | (escapingSlashes ? ByteWord.equal(word, 0x2F) : 0)
            }
            while index + 8 <= length {
                if special(ByteWord.load(source, at: index)) != 0 { break }
                index += 8
            }
            // Four to seven bytes left: in one word of two overlapping loads.
            if index + 8 > length, length - index >= 4 {
                let tail = UnsafeRawPointer(source + index)
                let word =
                    UInt64(tail.loadUnaligned(as: UInt32.self))
                    | UInt64(tail.loadUnaligned(fromByteOffset: length - index - 4, as: UInt32.self)) << 32
                if special(word) == 0 { index = length }
            }
            while index < length, !needsEscape(source[index]) { index += 1 }
            guard index < length else { break }
            let byte = source[index]
            copy(source + runStart, count: index - runStart)
            base[count] = 0x5C  // \
            count += 1
            switch byte {
            case 0x22, 0x2F, 0x5C: base[count] = byte
            case 0x08: base[count] = UInt8(ascii: "b")
            case 0x0C: base[count] = UInt8(ascii: "f")
            case 0x0A: base[count] = UInt8(ascii: "n")
            case 0x0D: base[count] = UInt8(ascii: "r")
            case 0x09: base[count] = UInt8(ascii: "t")
            default:
                base[count] = UInt8(ascii: "u")
                base[count + 1] = UInt8(ascii: "0")
                base[count + 2] = UInt8(ascii: "0")
                base[count + 3] = Self.hexDigit(byte >> 4)
                base[count + 4] = Self.hexDigit(byte & 0xF)
                count += 4
            }
            count += 1
            index += 1
            runStart = index
        }
        copy(source + runStart, count: length - runStart)
    }

    /// Copies `length` bytes from `source`; the room was checked by the caller.
    @inline(__always)
    private mutating func copy(_ source: UnsafePointer<UInt8>, count length: Int) {
        guard length > 0 else { return }
        (base + count).update(from: source, count: length)
        count += length
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
    }
}

extension Array where Element == UInt8 {
    /// Appends what `write` writes with a ``JSONRawWriter`` into room for at most `bound` bytes
    /// (on the stack when it is small).
    @inline(__always)
    package mutating func appendJSON<Failure: Error>(
        atMost bound: Int, _ write: (inout JSONRawWriter) throws(Failure) -> Void
    ) throws(Failure) {
        let outcome: Result<Void, Failure> = withUnsafeTemporaryAllocation(byteCount: bound, alignment: 1) { room in
            var writer = JSONRawWriter(room)
            do throws(Failure) {
                try write(&writer)
            } catch {
                return .failure(error)
            }
            append(contentsOf: writer.written)
            return .success(())
        }
        try outcome.get()
    }
}
