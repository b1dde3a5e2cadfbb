import RewindBaseTestSupport
import Testing

@testable import RewindStore

@Suite("Byte reader")
struct ByteReaderTests {
    /// `isValidUTF8` at every length from 0 to 40 (each of its word, half-word and byte loads):
    /// ASCII is valid; a byte with its high bit set at any position is checked as UTF-8 (a lone
    /// continuation byte is not valid, a two-byte letter is); the answer is `String`'s.
    @Test func utf8IsCheckedAtEveryLengthAndPosition() {
        var random = SeededRandom(seed: 8)
        for count in 0...40 {
            let ascii = (0..<count).map { _ in UInt8.random(in: 0...127, using: &random) }
            #expect(ascii.withUnsafeBytes { ByteReader.isValidUTF8($0) }, "\(count) ASCII bytes")
            for position in 0..<count {
                var lone = ascii
                lone[position] = 0x80 | UInt8.random(in: 0...0x3F, using: &random)
                #expect(!lone.withUnsafeBytes { ByteReader.isValidUTF8($0) }, "\(count) bytes, 0x80 at \(position)")
                guard position + 1 < count else { continue }
                var letter = ascii
                letter[position] = 0xC3
                letter[position + 1] = 0xA9  // é
                #expect(letter.withUnsafeBytes { ByteReader.isValidUTF8($0) }, "\(count) bytes, é at \(position)")
            }
        }
    }
}
