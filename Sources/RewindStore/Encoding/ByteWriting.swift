/// A byte array is a ``ByteSink`` that grows: session entries, keys and index blocks are built in
/// one with the same writers records use (all integers little-endian except keys, which are
/// big-endian so that LMDB's byte order is numeric order).
extension Array: ByteSink where Element == UInt8 {
    @inline(__always) mutating func put(_ byte: UInt8) { append(byte) }
    @inline(__always) mutating func put(_ bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}
