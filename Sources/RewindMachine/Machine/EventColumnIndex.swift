/// The column of a ``PreparedTable`` an event name has, found without `Hasher`: an open-addressing
/// table keyed by the FNV-1a hash of the name's UTF-8 bytes, each hit confirmed by comparing the
/// names. Every default `send` looks its event's name up here, and `Dictionary`'s SipHash of a
/// short name took about 330 instructions, as much as a whole prepared send (callgrind,
/// Benchmarks/HISTORY.md, 2026-11-29). The names are the definition's own, so the table's
/// probe chains are short whatever name is looked up.
struct EventColumnIndex: Sendable {
    /// A slot: the column of the name there, or `-1` (empty), and the name's hash, compared
    /// before the names are (a probe that meets another name skips it without comparing strings:
    /// the flat benchmark machine's names met one another on 0.7 of its lookups).
    private struct Slot: Sendable {
        var hash: Int
        var column: Int32
    }

    /// The names, a name's column being its position.
    private let names: [String]
    /// A power of two of slots; at most half are full.
    private let slots: [Slot]

    /// The index of `names`, each name's column its position (names are distinct).
    init(_ names: [String]) {
        var capacity = 4
        while capacity < 2 * names.count { capacity *= 2 }
        var slots = [Slot](repeating: Slot(hash: 0, column: -1), count: capacity)
        for (column, name) in names.enumerated() {
            let hash = Self.hash(name)
            var slot = hash & (capacity - 1)
            while slots[slot].column >= 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = Slot(hash: hash, column: Int32(column))
        }
        self.names = names
        self.slots = slots
    }

    /// The column of `name`, or `nil` when it has none.
    @inline(__always)
    func column(of name: String) -> Int32? {
        let mask = slots.count - 1
        let hash = Self.hash(name)
        var slot = hash & mask
        while true {
            let found = slots[slot]
            if found.column < 0 { return nil }
            if found.hash == hash && names[Int(found.column)] == name { return found.column }
            slot = (slot + 1) & mask
        }
    }

    /// FNV-1a (64-bit) of the name's UTF-8 bytes, read where the string holds them (a native
    /// string's, small ones included); a string without contiguous UTF-8 is copied first.
    @inline(__always)
    private static func hash(_ name: String) -> Int {
        if let hash = name.utf8.withContiguousStorageIfAvailable(fnv1a) { return hash }
        var contiguous = name
        return contiguous.withUTF8(fnv1a)
    }

    @inline(__always)
    private static func fnv1a(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}
