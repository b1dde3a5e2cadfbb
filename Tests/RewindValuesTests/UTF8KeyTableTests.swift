import RewindBaseTestSupport
@_spi(Internals) import RewindValues
import Testing

@Suite("UTF-8 key table")
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

    /// Byte sequences a table could mix up: the same ends around another middle, a zero byte
    /// against its absence, 16 against 17 bytes of one letter, canonically equivalent texts of
    /// other bytes. Each is interned as its own bytes, every time, and made once.
    @Test func bytesThatLookAlikeAreInternedApart() {
        let pairs: [([UInt8], [UInt8])] = [
            (Array("abcdefgh-middle-ijklmnop".utf8), Array("abcdefgh-MIDDLE-ijklmnop".utf8)),
            (Array("ab".utf8), Array("ab".utf8) + [0]), ([], [0]),
            (Array(repeating: 0x78, count: 16), Array(repeating: 0x78, count: 17)),
            (Array("caf\u{E9}".utf8), Array("cafe\u{301}".utf8)),
        ]
        var table = UTF8KeyTable()
        for (first, second) in pairs {
            for bytes in [first, second, first, second] {
                #expect(Array(bytes.withUnsafeBytes { table.string($0) }.utf8) == bytes)
            }
        }
        #expect(table.count == pairs.count * 2)
    }

    /// Keys added without a string are found by their bytes, beside the strings.
    @Test func keysAddedWithoutAStringAreFoundByTheirBytes() {
        var table = UTF8KeyTable()
        let home = Array("home".utf8).withUnsafeBytes { table.intern($0) }
        let list = [UInt8]([4]) + Array("home".utf8)
        let listIndex = list.withUnsafeBytes { table.insert(bytes: $0) }
        #expect(list.withUnsafeBytes { table.index(of: $0) } == listIndex)
        #expect(table.index(of: "home") == home)
        #expect(table.keys == ["home", ""])
    }

    /// A bounded table holds at most its bound: the key past it is added to an emptied table
    /// (index 0), the keys before it are forgotten, and lookups and inserts agree with a
    /// dictionary that starts over at the same moments.
    @Test func aBoundedTableStartsOverPastItsBound() {
        var table = UTF8KeyTable(startingOverPast: 3)
        for (index, key) in ["a", "b", "c"].enumerated() {
            #expect(Array(key.utf8).withUnsafeBytes { table.intern($0) } == index)
        }
        #expect(Array("d".utf8).withUnsafeBytes { table.intern($0) } == 0)
        #expect(table.keys == ["d"])
        #expect(table.index(of: "a") == nil)
        #expect(table.index(of: "d") == 0)
        #expect(Array("a".utf8).withUnsafeBytes { table.string($0) } == "a")
        #expect(table.keys == ["d", "a"])

        var random = SeededRandom(seed: 12)
        var bounded = UTF8KeyTable(startingOverPast: 50)
        var model: [String: Int] = [:]
        var largest = 0
        for _ in 0..<5_000 {
            let key = "state-\(Int.random(in: 0..<120, using: &random))"
            #expect(bounded.index(of: key) == model[key])
            if model[key] == nil {
                if model.count == 50 { model.removeAll() }
                model[key] = model.count
                #expect(Array(key.utf8).withUnsafeBytes { bounded.insert(key, bytes: $0) } == model[key])
            }
            largest = max(largest, bounded.count)
        }
        #expect(largest == 50)
        #expect(bounded.count == model.count)
    }
}
