import Foundation

extension UnsafeRawBufferPointer {
    /// Whether these bytes equal `other`'s. Inlinable: the archive's member names call it for
    /// each name they try, and a call per try cost about 1,300 instructions a record line.
    @inlinable @inline(__always)
    package func equals(_ other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        guard count > 0, let left = baseAddress, let right = other.baseAddress else { return true }
        return memcmp(left, right, count) == 0
    }
}
