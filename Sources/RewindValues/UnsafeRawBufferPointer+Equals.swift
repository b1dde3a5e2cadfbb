import Foundation

extension UnsafeRawBufferPointer {
    /// Whether these bytes equal `other`'s. Inlinable, and public only to the package's own
    /// modules (`@_spi(Internals)`; this compiler inlines an `@inlinable package` declaration into
    /// no other module): the archive's member names call it for each name they try, and a call
    /// per try cost about 1,300 instructions a record line.
    @_spi(Internals) @inlinable @inline(__always)
    public func equals(_ other: UnsafeRawBufferPointer) -> Bool {
        let count = self.count
        guard count == other.count else { return false }
        // Up to 16 bytes, compared inline in at most two loads a side (overlapping); beyond,
        // by `memcmp`.
        if count >= 8 {
            guard count <= 16 else {
                guard let left = baseAddress, let right = other.baseAddress else { return true }
                return memcmp(left, right, count) == 0
            }
            return loadUnaligned(as: UInt64.self) == other.loadUnaligned(as: UInt64.self)
                && loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == other.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        return ByteWord.short(self) == ByteWord.short(other)
    }
}
