/// Values made from bytes, remembered by those bytes: a reader of many records that repeat the
/// same texts (a session's machine, definition, states and events, in the store's records and in
/// an archive's lines) makes each value once and hands it out again, shared by reference, instead
/// of making and freeing it for every record.
///
/// A direct-mapped table of 64 slots: a value's slot comes from its bytes' count and first and last
/// eight bytes (its `Key`); the newest value of a slot replaces the older. Finding a value costs
/// a few word comparisons whatever the number of names; bytes longer than 16 are compared in full
/// too, so a value is handed out only for exactly its bytes. A new memory allocates nothing until
/// its first value; one made with `remembering: false` never does (a single record's reader,
/// which would only pay for it).
///
/// The string memory of the store's record decoding (`RecentStrings`) and of the JSON parser's
/// string values (`JSONValue.parseMembers(ofObject:remembering:_:)`).
///
/// Its methods are inlinable and exported pre-specialized for the two values the package keeps
/// (`String`, `[String]`): `@inlinable` alone left the store's decoding calling the unspecialized
/// generic code, with a metadata lookup per call (an export's record 15,469 → 22,014 instructions,
/// callgrind).
package struct RecentByBytes<Value> {
    @usableFromInline let isRemembering: Bool
    /// For each slot, 1 + the index in `entries` of its value, or 0 for none. Bytes, so a new
    /// table is one small allocation with no per-slot initialisation.
    @usableFromInline var slots: [UInt8] = []
    @usableFromInline var entries: [Entry] = []

    /// A memory of values by their bytes; `remembering: false` remembers nothing.
    @inlinable
    package init(remembering: Bool = true) {
        isRemembering = remembering
    }

    /// The value remembered for exactly `bytes`, else the one `make` makes from them (then
    /// remembered in its slot).
    @inlinable
    @_specialize(exported:true,where Value == String)
    @_specialize(exported:true,where Value == [String])
    package mutating func value(for bytes: UnsafeRawBufferPointer, orMake make: () -> Value) -> Value {
        if let value = remembered(for: bytes) { return value }
        let value = make()
        remember(value, for: bytes)
        return value
    }

    /// The value remembered for exactly `bytes`, if any.
    @inlinable
    @_specialize(exported:true,where Value == String)
    @_specialize(exported:true,where Value == [String])
    package func remembered(for bytes: UnsafeRawBufferPointer) -> Value? {
        guard !slots.isEmpty else { return nil }
        let key = Key(bytes)
        let index = Int(slots[key.slot])
        guard index > 0 else { return nil }
        let entry = entries[index - 1]
        guard entry.key == key, key.count <= 16 || entry.long.withUnsafeBytes({ $0.equals(bytes) }) else {
            return nil
        }
        return entry.value
    }

    /// Remembers `value` for `bytes`, in place of the value its slot held.
    @inlinable
    @_specialize(exported:true,where Value == String)
    @_specialize(exported:true,where Value == [String])
    package mutating func remember(_ value: Value, for bytes: UnsafeRawBufferPointer) {
        guard isRemembering else { return }
        let key = Key(bytes)
        let slot = key.slot
        if slots.isEmpty { slots = Array(repeating: 0, count: Self.slotCount) }
        let entry = Entry(key: key, long: key.count > 16 ? Array(bytes) : [], value: value)
        if slots[slot] == 0 {
            entries.append(entry)
            slots[slot] = UInt8(entries.count)
        } else {
            entries[Int(slots[slot]) - 1] = entry
        }
    }

    @usableFromInline static var slotCount: Int { 64 }

    @usableFromInline
    struct Entry {
        @usableFromInline let key: Key
        /// The bytes of a key longer than 16 (the key alone does not tell them).
        @usableFromInline let long: [UInt8]
        @usableFromInline let value: Value

        @inlinable
        init(key: Key, long: [UInt8], value: Value) {
            self.key = key
            self.long = long
            self.value = value
        }
    }

    /// Bytes told apart in three words: their count and their first and last eight bytes
    /// (zero-padded). Up to 16 bytes, equal keys are equal bytes.
    @usableFromInline
    struct Key: Equatable {
        @usableFromInline let count: Int
        @usableFromInline let head: UInt64
        @usableFromInline let tail: UInt64

        @inlinable
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

        /// The slot: the three words mixed (a multiplication by 2⁶⁴ ÷ φ), its top six bits.
        @inlinable
        var slot: Int {
            let rotated = tail << 29 | tail >> 35
            let mixed = (head ^ rotated ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15
            return Int(truncatingIfNeeded: mixed >> 58)
        }
    }
}
