/// The strings and string lists a run of decoded records repeats, made once and handed out again.
///
/// A session's records name the same machine, definition, states and events over and over.
/// Decoding each record anew makes a `String` or a `[String]` per field (the definition's 64
/// characters and every list on the heap) and frees them again with the record. A walk over many
/// records decodes them through one `RecentStrings` (``RecordView/record(reusing:)``): a field
/// whose bytes are those of a string or list made before is that value again, shared by
/// reference.
///
/// Values are kept in a small table indexed by their bytes (a slot per value, the newest value
/// of a slot replacing the older), so finding one costs a few word comparisons whatever the
/// number of names. What it hands out is the value a fresh decode makes: only storage is shared.
package struct RecentStrings {
    private var strings: Table<String>
    private var lists: Table<[String]>

    /// A memory of recent strings and lists; `remembering: false` remembers nothing (a single
    /// record's decode, which would only pay for the memory).
    package init(remembering: Bool = true) {
        strings = Table(isEnabled: remembering)
        lists = Table(isEnabled: remembering)
    }

    /// The string whose UTF-8 is `bytes` (checked UTF-8).
    package mutating func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let key = Key(bytes)
        if let string = strings.value(for: key, bytes) { return string }
        let string = String(decoding: bytes, as: UTF8.self)
        strings.insert(string, for: key, bytes)
        return string
    }

    /// The strings of `list`.
    package mutating func list(_ list: RecordView.StringList) -> [String] {
        guard !list.isEmpty else { return [] }
        let bytes = list.encodedBytes
        let key = Key(bytes)
        if let strings = lists.value(for: key, bytes) { return strings }
        var made: [String] = []
        made.reserveCapacity(list.count)
        for element in list { made.append(string(element)) }
        lists.insert(made, for: key, bytes)
        return made
    }

    /// A value's bytes told apart in three words: their count and their first and last eight
    /// bytes (zero-padded). Up to 16 bytes, equal keys are equal bytes; longer ones are compared
    /// in full too.
    private struct Key: Equatable {
        let count: Int
        let head: UInt64
        let tail: UInt64

        init(_ bytes: UnsafeRawBufferPointer) {
            count = bytes.count
            if count >= 8 {
                head = bytes.loadUnaligned(as: UInt64.self)
                tail = bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            } else {
                var word: UInt64 = 0
                withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: bytes) }
                head = word
                tail = 0
            }
        }

        var slot: Int {
            let mixed = (head ^ tail.rotated(by: 29) ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15
            return Int(truncatingIfNeeded: mixed >> UInt64(64 - Table<String>.slotBits))
        }
    }

    /// A direct-mapped table of values by key: each of 64 slots names the entry of the value
    /// last inserted there. The slots are bytes, so a new table costs one small allocation and
    /// no per-slot initialisation; entries are added as values arrive.
    private struct Table<Value> {
        static var slotBits: Int { 6 }
        private struct Entry {
            let key: Key
            /// The bytes of a key longer than 16 (the key alone does not tell them).
            let long: [UInt8]
            let value: Value
        }
        private let isEnabled: Bool
        /// For each slot, 1 + the index in `entries` of its value, or 0 for none.
        private var slots: [UInt8] = []
        private var entries: [Entry] = []

        init(isEnabled: Bool) { self.isEnabled = isEnabled }

        func value(for key: Key, _ bytes: UnsafeRawBufferPointer) -> Value? {
            guard !slots.isEmpty else { return nil }
            let index = Int(slots[key.slot])
            guard index > 0 else { return nil }
            let entry = entries[index - 1]
            guard entry.key == key else { return nil }
            guard key.count > 16 else { return entry.value }
            return entry.long.withUnsafeBytes { $0.equals(bytes) } ? entry.value : nil
        }

        mutating func insert(_ value: Value, for key: Key, _ bytes: UnsafeRawBufferPointer) {
            guard isEnabled else { return }
            if slots.isEmpty { slots = Array(repeating: 0, count: 1 << Self.slotBits) }
            let entry = Entry(key: key, long: key.count > 16 ? Array(bytes) : [], value: value)
            let slot = key.slot
            if slots[slot] == 0 {
                entries.append(entry)
                slots[slot] = UInt8(entries.count)
            } else {
                entries[Int(slots[slot]) - 1] = entry
            }
        }
    }
}

extension UInt64 {
    fileprivate func rotated(by bits: UInt64) -> UInt64 { self << bits | self >> (64 - bits) }
}
