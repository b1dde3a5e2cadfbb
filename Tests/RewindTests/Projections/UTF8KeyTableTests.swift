import RewindTestSupport
import Testing

@testable import Rewind

struct UTF8KeyTableTests {
    /// Random inserts and lookups (through growth and `removeAll`) agree with a dictionary keyed
    /// by the same bytes.
    @Test func lookupsAgreeWithADictionaryOfBytes() {
        var random = SeededRandom(seed: 11)
        var table = UTF8KeyTable()
        var model: [[UInt8]: Int] = [:]
        for round in 0..<20_000 {
            if round == 12_000 {
                table.removeAll()
                model.removeAll()
            }
            let length = Int.random(in: 0...40, using: &random)
            let key = String(
                (0..<length).map { _ in Character(Unicode.Scalar(UInt8.random(in: 97...100, using: &random))) })
            let bytes = Array(key.utf8)
            let found = bytes.withUnsafeBytes { table.index(of: $0) }
            #expect(found == model[bytes])
            if found == nil {
                let index = bytes.withUnsafeBytes { table.insert(key, bytes: $0) }
                model[bytes] = index
            }
            if let index = model[bytes] { #expect(table.keys[index] == key) }
        }
        #expect(table.count == model.count)
    }

    @Test func keysEqualAsStringsButNotAsBytesAreTwoKeys() {
        var table = UTF8KeyTable()
        let precomposed = "café"
        let decomposed = "cafe\u{301}"
        #expect(precomposed == decomposed)
        let first =
            table.index(of: precomposed)
            ?? Array(precomposed.utf8).withUnsafeBytes { table.insert(precomposed, bytes: $0) }
        #expect(table.index(of: decomposed) == nil)
        let second = Array(decomposed.utf8).withUnsafeBytes { table.intern($0) }
        #expect(first != second)
        #expect(table.index(of: precomposed) == first)
        #expect(table.index(of: decomposed) == second)
    }
}
