import RewindStore

/// Appends the fields of a compact binary projection state (the built-ins' encoding): varints
/// (unsigned LEB128), length-prefixed strings and bytes, fixed-width integers.
struct StateWriter {
    var bytes: [UInt8] = []

    @inline(__always)
    mutating func byte(_ value: UInt8) { bytes.append(value) }

    @inline(__always)
    mutating func varint(_ value: UInt64) { Varint.append(value, to: &bytes) }

    @inline(__always)
    mutating func int64(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func bigEndian(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }

    mutating func bigEndian(_ value: UInt64) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }

    @inline(__always)
    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func strings(_ values: [String]) {
        varint(UInt64(values.count))
        for value in values { string(value) }
    }

    mutating func data(_ value: [UInt8]) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }
}

/// Why stored state bytes could not be read.
struct StateDecodingError: Error, CustomStringConvertible {
    var reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String { reason }
}

/// Reads what a ``StateWriter`` wrote from a borrowed buffer, never trapping on bad input.
struct StateReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw StateDecodingError("truncated at byte \(offset)") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws -> UInt64 {
        do {
            return try Varint.read(bytes, at: &offset)
        } catch {
            throw StateDecodingError(error.description)
        }
    }

    mutating func int64() throws -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func bigEndianUInt32() throws -> UInt32 {
        guard remaining >= 4 else { throw StateDecodingError("truncated at byte \(offset)") }
        defer { offset += 4 }
        return UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func bigEndianUInt64() throws -> UInt64 {
        guard remaining >= 8 else { throw StateDecodingError("truncated at byte \(offset)") }
        defer { offset += 8 }
        return UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// A varint count (of bytes or items), at most the bytes left.
    mutating func count() throws -> Int {
        let count = try varint()
        guard count <= UInt64(remaining) else {
            throw StateDecodingError("a length of \(count) exceeds the \(remaining) bytes left at byte \(offset)")
        }
        return Int(count)
    }

    mutating func string() throws -> String {
        let count = try count()
        defer { offset += count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]), as: UTF8.self)
    }

    mutating func strings() throws -> [String] {
        let count = try count()
        var values: [String] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try string()) }
        return values
    }

    mutating func data() throws -> [UInt8] {
        let count = try count()
        defer { offset += count }
        return Array(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
    }

    func expectEnd() throws {
        guard remaining == 0 else { throw StateDecodingError("\(remaining) unexpected bytes at the end") }
    }
}
