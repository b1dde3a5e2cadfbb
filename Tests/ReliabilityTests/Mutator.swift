import Foundation
import RewindTestSupport

/// Seeded byte-level mutations of valid inputs (the operations of a mutation fuzzer: bit flips,
/// interesting bytes, insertions, deletions, duplications, truncation, splicing).
struct Mutator {
    var random: SeededRandom

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    /// Bytes worth trying at any position: boundaries of varints, UTF-8 and JSON.
    static let interesting: [UInt8] = [
        0x00, 0x01, 0x7F, 0x80, 0x81, 0xC0, 0xFF, 0xFE, 0xED,
        UInt8(ascii: "\n"), UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["),
        UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "&"), UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "\\"),
    ]

    /// `input` with one to four random mutations.
    mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            mutateOnce(&bytes)
        }
        return bytes
    }

    private mutating func mutateOnce(_ bytes: inout [UInt8]) {
        if bytes.isEmpty {
            bytes.append(UInt8.random(in: 0...255, using: &random))
            return
        }
        let index = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<9, using: &random) {
        case 0:
            bytes[index] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case 1:
            bytes[index] = UInt8.random(in: 0...255, using: &random)
        case 2:
            bytes[index] = Self.interesting.randomElement(using: &random) ?? 0
        case 3:
            let count = Int.random(in: 1...8, using: &random)
            bytes.insert(contentsOf: (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }, at: index)
        case 4:
            let end = min(bytes.count, index + Int.random(in: 1...16, using: &random))
            bytes.removeSubrange(index..<end)
        case 5:
            let end = min(bytes.count, index + Int.random(in: 1...32, using: &random))
            let target = Int.random(in: 0...bytes.count, using: &random)
            bytes.insert(contentsOf: Array(bytes[index..<end]), at: target)
        case 6:
            bytes.removeSubrange(index...)
        case 7:
            // A run of 0xFF: an over-long varint, an absurd length.
            let end = min(bytes.count, index + Int.random(in: 1...10, using: &random))
            for position in index..<end { bytes[position] = 0xFF }
        default:
            let other = Int.random(in: 0..<bytes.count, using: &random)
            bytes.swapAt(index, other)
        }
    }
}
