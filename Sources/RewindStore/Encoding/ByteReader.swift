import Foundation
@_spi(Internals) import RewindValues

/// Why a binary value could not be read (turned into a ``StoreError`` by the caller, which knows
/// the sequence or key).
struct DecodingFailure: Error {
    let reason: String
}

/// A bounds-checked reader over a borrowed buffer (usually LMDB's memory map).
struct ByteReader {
    let buffer: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    var remaining: Int { buffer.count - offset }

    @inline(__always)
    private func require(_ count: Int, _ what: @autoclosure () -> String) throws(DecodingFailure) {
        if count > remaining {
            throw DecodingFailure(
                reason: "truncated: \(what()) needs \(count) bytes at offset \(offset), \(remaining) left")
        }
    }

    @inline(__always)
    mutating func byte(_ what: @autoclosure () -> String) throws(DecodingFailure) -> UInt8 {
        try require(1, what())
        defer { offset += 1 }
        return buffer[offset]
    }

    /// A varint (see ``Varint``).
    @inline(__always)
    mutating func varint(_ what: @autoclosure () -> String) throws(DecodingFailure) -> UInt64 {
        do {
            return try Varint.read(buffer, at: &offset)
        } catch {
            switch error {
            case .truncated(let at):
                throw DecodingFailure(
                    reason: "truncated: \(what()) needs 1 bytes at offset \(at), \(buffer.count - at) left")
            case .overflow: throw DecodingFailure(reason: "\(what()) is a varint that overflows 64 bits")
            case .notMinimal:
                throw DecodingFailure(
                    reason: "\(what()) is a varint with a redundant zero byte (not minimally encoded)")
            }
        }
    }

    mutating func int64LittleEndian(_ what: @autoclosure () -> String) throws(DecodingFailure) -> Int64 {
        try require(8, what())
        defer { offset += 8 }
        return Int64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: Int64.self))
    }

    mutating func uint32LittleEndian(_ what: @autoclosure () -> String) throws(DecodingFailure) -> UInt32 {
        try require(4, what())
        defer { offset += 4 }
        return UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// A varint length, checked against the bytes left before anything is allocated.
    @inline(__always)
    private mutating func length(_ what: @autoclosure () -> String) throws(DecodingFailure) -> Int {
        let length = try varint(what())
        guard length <= UInt64(remaining) else {
            throw DecodingFailure(
                reason: "truncated: \(what()) claims \(length) bytes at offset \(offset), \(remaining) left")
        }
        return Int(length)
    }

    mutating func bytes(_ what: @autoclosure () -> String) throws(DecodingFailure) -> [UInt8] {
        let count = try length(what())
        defer { offset += count }
        return Array(UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count]))
    }

    mutating func string(_ what: @autoclosure () -> String) throws(DecodingFailure) -> String {
        let count = try length(what())
        let slice = UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
        offset += count
        let string = String(decoding: slice, as: UTF8.self)
        // String(decoding:) repairs invalid UTF-8; different bytes mean the input was invalid.
        // A native string's UTF-8 is contiguous: compare it as raw bytes (the generic
        // `utf8.elementsEqual` walks String indices, a fifth of a projection rebuild's time).
        let isUnchanged =
            string.utf8.withContiguousStorageIfAvailable { stored in
                guard stored.count == count else { return false }
                guard count > 0, let storedBytes = stored.baseAddress, let sliceBytes = slice.baseAddress else {
                    return true
                }
                return memcmp(storedBytes, sliceBytes, count) == 0
            } ?? string.utf8.elementsEqual(slice)
        guard isUnchanged else {
            throw DecodingFailure(reason: "\(what()) is not valid UTF-8")
        }
        return string
    }

    /// Skips a length-prefixed byte field, returning where its bytes lie in the buffer.
    @inline(__always)
    mutating func bytesRange(_ what: @autoclosure () -> String) throws(DecodingFailure) -> Range<Int> {
        let count = try length(what())
        defer { offset += count }
        return offset..<offset + count
    }

    /// Skips a length-prefixed string after checking that it is valid UTF-8, returning where its
    /// bytes lie in the buffer. Allocates nothing for ASCII (the usual case).
    @inline(__always)
    mutating func stringRange(_ what: @autoclosure () -> String) throws(DecodingFailure) -> Range<Int> {
        let range = try bytesRange(what())
        guard Self.isValidUTF8(UnsafeRawBufferPointer(rebasing: buffer[range])) else {
            throw DecodingFailure(reason: "\(what()) is not valid UTF-8")
        }
        return range
    }

    /// Whether `bytes` are valid UTF-8: ASCII is checked a word at a time; anything else is
    /// decoded and compared (`String(decoding:)` repairs invalid UTF-8, so changed bytes mean
    /// the input was invalid).
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        // Any byte with its high bit set, read a word at a time; the last (partial) word is the
        // last eight bytes, overlapping the one before, and fewer than eight bytes are read as one
        // word (`ByteWord.short`: most names are short).
        var high: UInt64 = 0
        if count >= 8 {
            var index = 0
            while count - index > 8 {
                high |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
            high |= bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else {
            high = ByteWord.short(bytes)
        }
        if high & 0x8080_8080_8080_8080 == 0 { return true }
        let string = String(decoding: bytes, as: UTF8.self)
        return string.utf8.withContiguousStorageIfAvailable { stored in
            guard stored.count == count else { return false }
            guard let storedBytes = stored.baseAddress, let sliceBytes = bytes.baseAddress else { return true }
            return memcmp(storedBytes, sliceBytes, count) == 0
        } ?? string.utf8.elementsEqual(bytes)
    }

    /// Skips a varint count then that many strings (each checked like ``stringRange(_:)``),
    /// returning the count and the offset of the first string.
    mutating func stringList(_ what: @autoclosure () -> String) throws(DecodingFailure) -> (start: Int, count: Int) {
        let count = try varint("\(what()) count")
        guard count <= UInt64(remaining) else {
            throw DecodingFailure(reason: "truncated: \(what()) claims \(count) entries, \(remaining) bytes left")
        }
        let start = offset
        for index in 0..<Int(count) {
            _ = try stringRange("\(what())[\(index)]")
        }
        return (start, Int(count))
    }

    mutating func strings(_ what: @autoclosure () -> String) throws(DecodingFailure) -> [String] {
        let count = try varint("\(what()) count")
        guard count <= UInt64(remaining) else {
            throw DecodingFailure(reason: "truncated: \(what()) claims \(count) entries, \(remaining) bytes left")
        }
        var strings: [String] = []
        strings.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            strings.append(try string("\(what())[\(index)]"))
        }
        return strings
    }
}
