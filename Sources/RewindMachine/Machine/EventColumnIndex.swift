/// The column of a ``PreparedTable`` an event name has, found without `Hasher`: an open-addressing
/// table keyed by the FNV-1a hash of the name's UTF-8 bytes, each hit confirmed by comparing the
/// names. Every default `send` looks its event's name up here, and `Dictionary`'s SipHash of a
/// short name took about 330 instructions, as much as a whole prepared send (callgrind,
/// Benchmarks/HISTORY.md, 2026-11-29). The names are the definition's own, so the table's
/// probe chains are short whatever name is looked up.
struct EventColumnIndex: Sendable {
    /// The names, a name's column being its position.
    private let names: [String]
    /// A power of two of slots, each a column or `-1` (empty); at most half are full.
    private let slots: [Int32]

    /// The index of `names`, each name's column its position (names are distinct).
    init(_ names: [String]) {
        var capacity = 4
        while capacity < 2 * names.count { capacity *= 2 }
        var slots = [Int32](repeating: -1, count: capacity)
        for (column, name) in names.enumerated() {
            var slot = Self.hash(name) & (capacity - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = Int32(column)
        }
        self.names = names
        self.slots = slots
    }

    /// The column of `name`, or `nil` when it has none.
    @inline(__always)
    func column(of name: String) -> Int32? {
        let mask = slots.count - 1
        var slot = Self.hash(name) & mask
        while true {
            let column = slots[slot]
            if column < 0 { return nil }
            if names[Int(column)] == name { return column }
            slot = (slot + 1) & mask
        }
    }

    /// FNV-1a (64-bit) of the name's UTF-8 bytes.
    @inline(__always)
    private static func hash(_ name: String) -> Int {
        var name = name
        return name.withUTF8 { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return Int(truncatingIfNeeded: hash ^ (hash >> 32))
        }
    }
}
