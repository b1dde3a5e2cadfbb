import RewindStore
import Testing

@Suite("Store keys")
struct StoreKeyTests {
    @Test func uint64KeysAreBigEndianAndSortNumerically() {
        #expect(StoreKey.uint64(1) == [0, 0, 0, 0, 0, 0, 0, 1])
        #expect(StoreKey.uint64(256) == [0, 0, 0, 0, 0, 0, 1, 0])
        #expect(StoreKey.uint64(255).lexicographicallyPrecedes(StoreKey.uint64(256)))
        #expect(StoreKey.uint64(from: StoreKey.uint64(0xDEAD_BEEF_0102)) == 0xDEAD_BEEF_0102)
        #expect(StoreKey.uint64(from: [1, 2, 3]) == nil)
    }

    @Test func compoundKeysGroupByStringThenSortByNumber() {
        let keys = [("ab", 1), ("a", 300), ("a", 2), ("b", 0)].map { StoreKey.compound($0.0, UInt64($0.1)) }
        let sorted = keys.sorted { $0.lexicographicallyPrecedes($1) }
        #expect(
            sorted.compactMap { StoreKey.splitCompound($0) }.map { "\($0.string)#\($0.number)" }
                == ["a#2", "a#300", "ab#1", "b#0"])
        #expect(StoreKey.splitCompound([1, 2]) == nil)
        #expect(StoreKey.compound("s", 7).starts(with: StoreKey.compoundPrefix("s")))
    }
}
