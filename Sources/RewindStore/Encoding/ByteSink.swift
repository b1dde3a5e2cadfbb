/// Where an encoder puts its bytes. A record is encoded twice through the same code: once into a
/// ``ByteCounter`` (the size LMDB reserves for the value), then into a ``RawByteWriter`` over the
/// reserved space — so the count and the bytes cannot disagree, and nothing is copied. Smaller
/// values (session entries, keys, index blocks) go into a growing `[UInt8]`, a sink too.
protocol ByteSink {
    /// Puts one byte.
    mutating func put(_ byte: UInt8)
    /// Puts `bytes`.
    mutating func put(_ bytes: UnsafeRawBufferPointer)
    /// Puts a varint byte count, then the string's UTF-8 bytes.
    mutating func putString(_ string: String)
}

/// Counts what an encoder puts, writing nothing.
struct ByteCounter: ByteSink {
    private(set) var count = 0

    @inline(__always) mutating func put(_ byte: UInt8) { count += 1 }
    @inline(__always) mutating func put(_ bytes: UnsafeRawBufferPointer) { count += bytes.count }

    /// Counts a string without touching its bytes (a native string knows its UTF-8 length).
    @inline(__always) mutating func putString(_ string: String) {
        let length = string.utf8.count
        putVarint(UInt64(length))
        count += length
    }
}

/// Writes what an encoder puts into memory sized by a ``ByteCounter`` run of the same encoder.
struct RawByteWriter: ByteSink {
    private let destination: UnsafeMutableRawBufferPointer
    /// The number of bytes written so far.
    private(set) var offset = 0

    init(_ destination: UnsafeMutableRawBufferPointer) {
        self.destination = destination
    }

    @inline(__always) mutating func put(_ byte: UInt8) {
        precondition(offset < destination.count, "encoder wrote past the size it counted")
        destination[offset] = byte
        offset += 1
    }

    @inline(__always) mutating func put(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count <= destination.count - offset, "encoder wrote past the size it counted")
        guard let source = bytes.baseAddress, let target = destination.baseAddress, !bytes.isEmpty else { return }
        (target + offset).copyMemory(from: source, byteCount: bytes.count)
        offset += bytes.count
    }
}

extension ByteSink {
    /// Puts `value` as 8 little-endian bytes.
    @inline(__always)
    mutating func putLittleEndian(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { put($0) }
    }

    /// Puts `value` as 4 little-endian bytes.
    @inline(__always)
    mutating func putLittleEndian(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { put($0) }
    }

    /// Puts `value` as 8 big-endian bytes (keys: LMDB's byte order is then numeric order).
    @inline(__always)
    mutating func putBigEndian(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { put($0) }
    }

    /// Puts a varint byte count, then the string's UTF-8 bytes (read in place when the string
    /// stores them contiguously, as native strings do).
    @inline(__always)
    mutating func putString(_ string: String) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            putVarint(UInt64(utf8.count))
            put(UnsafeRawBufferPointer(utf8))
        }
        if done == nil {
            var copy = string
            copy.withUTF8 { utf8 in
                putVarint(UInt64(utf8.count))
                put(UnsafeRawBufferPointer(utf8))
            }
        }
    }

    /// Puts a varint byte count, then the bytes.
    @inline(__always)
    mutating func putBytes(_ bytes: [UInt8]) {
        putVarint(UInt64(bytes.count))
        bytes.withUnsafeBytes { put($0) }
    }
}
