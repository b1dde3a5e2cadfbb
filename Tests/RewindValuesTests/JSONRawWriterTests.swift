import Foundation
import RewindBaseTestSupport
@_spi(Internals) import RewindValues
import Testing

/// The package's one writer of a string's escapes and of decimal digits: the same bytes as
/// `JSONEncoder` and `String(_:)`, whatever the length (whole words, a tail of four to seven bytes
/// read as one word, shorter tails byte by byte) and wherever a byte that needs an escape falls.
struct JSONRawWriterTests {
    private static func encoded(_ text: String, escapingSlashes: Bool) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = escapingSlashes ? [] : [.withoutEscapingSlashes]
        return Array(try encoder.encode(text))
    }

    private static func written(_ text: String, escapingSlashes: Bool) -> [UInt8] {
        var bytes = Array("prefix".utf8)
        JSONText.writeString(text, into: &bytes, escapingSlashes: escapingSlashes)
        return Array(bytes.dropFirst(6))
    }

    @Test func everyLengthAndEveryPlaceOfASpecialByteIsWrittenAsJSONEncoderWritesIt() throws {
        for length in 0...20 {
            let plain = String(repeating: "a", count: length)
            for escapingSlashes in [true, false] {
                #expect(
                    Self.written(plain, escapingSlashes: escapingSlashes)
                        == (try Self.encoded(plain, escapingSlashes: escapingSlashes)), "\(length)")
            }
            for place in 0..<length {
                for special in ["\"", "\\", "/", "\n", "\t", "\u{1F}", "\u{0}", "\u{7F}", "é", "日"] {
                    let text =
                        String(repeating: "a", count: place) + special
                        + String(repeating: "b", count: length - place - 1)
                    for escapingSlashes in [true, false] {
                        #expect(
                            Self.written(text, escapingSlashes: escapingSlashes)
                                == (try Self.encoded(text, escapingSlashes: escapingSlashes)),
                            "length \(length), \(special.debugDescription) at \(place)")
                    }
                }
            }
        }
    }

    @Test func stringsOfRandomSpecialBytesAreWrittenAsJSONEncoderWritesThem() throws {
        let alphabet: [String] = ["a", "/", "\\", "\"", "\u{01}", "\u{08}", "\u{0C}", "\n", "\r", "\t", "é", "👩‍👩‍👧"]
        var random = SeededRandom(seed: 0x7A_3A17)
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...30, using: &random)).map { _ in
                alphabet.randomElement(using: &random) ?? ""
            }.joined()
            let escapingSlashes = random.chance(0.5)
            #expect(
                Self.written(text, escapingSlashes: escapingSlashes)
                    == (try Self.encoded(text, escapingSlashes: escapingSlashes)), "\(text.debugDescription)")
        }
    }

    @Test func digitsAreTheDecimalTextOfTheValue() {
        var values: [UInt64] = [0, 1, 9, 10, 11, 99, 100, 101, 999, 1_000, .max, .max - 1]
        var power: UInt64 = 10
        while true {
            values += [power - 1, power, power + 1]
            let (next, overflow) = power.multipliedReportingOverflow(by: 10)
            if overflow { break }
            power = next
        }
        var random = SeededRandom(seed: 0xD161_7500)
        for _ in 0..<1_000 { values.append(random.next() >> UInt64.random(in: 0...63, using: &random)) }
        for value in values {
            var bytes = Array("x".utf8)
            JSONText.writeDigits(value, into: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == "x\(value)")
        }
    }

    /// A writer writes into the room it is given and says what it wrote; starting over writes at
    /// the beginning again.
    @Test func aWriterWritesItsPiecesInOrderIntoItsRoom() {
        var bytes: [UInt8] = []
        bytes.appendJSON(atMost: 64) { writer in
            writer.put(#"{"a":"#)
            writer.writeString(utf8: UnsafeRawBufferPointer(start: nil, count: 0), escapingSlashes: true)
            writer.put(UInt8(ascii: ","))
            writer.writeDigits(1_234_567)
        }
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"a":"",1234567"#)
        withUnsafeTemporaryAllocation(byteCount: 8, alignment: 1) { room in
            var writer = JSONRawWriter(room)
            writer.writeDigits(42)
            writer.removeAll()
            writer.put(UInt8(ascii: "7"))
            #expect(Array(writer.written) == [UInt8(ascii: "7")])
        }
    }
}
