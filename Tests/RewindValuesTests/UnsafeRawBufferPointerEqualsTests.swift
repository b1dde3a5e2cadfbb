import RewindBaseTestSupport
@_spi(Internals) import RewindValues
import Testing

@Suite("Byte comparison")
struct UnsafeRawBufferPointerEqualsTests {
    /// Every length from 0 to 40 (each of the inline loads' cases and `memcmp`'s), against the same
    /// bytes, bytes differing in any one position, and bytes one longer: `equals` agrees with
    /// comparing the arrays.
    @Test func agreesWithComparingTheArraysAtEveryLengthAndPosition() {
        var random = SeededRandom(seed: 7)
        for count in 0...40 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            var others = [bytes, bytes + [0], Array(bytes.dropLast())]
            for position in 0..<count {
                var changed = bytes
                changed[position] ^= UInt8.random(in: 1...255, using: &random)
                others.append(changed)
            }
            for other in others {
                let equal = bytes.withUnsafeBytes { left in other.withUnsafeBytes { left.equals($0) } }
                #expect(equal == (bytes == other), "\(count) bytes against \(other.count)")
            }
        }
    }
}
