/// A set of strings looked up by their UTF-8 bytes without creating a `String`, each with an index
/// (in insertion order). The one table of the package that finds a text by its bytes:
/// - a fold finds a record's key straight from the record's borrowed bytes (`FoldStates`);
/// - readers of many records intern the texts those records repeat (machine names, definitions,
///   states, events): ``string(_:)`` hands out one shared `String` for equal bytes, made once. The
///   screen-flow fold step, the store's record decoding (`RecentStrings`) and the JSON parser's
///   memory (``JSONValue/stringMemory()``) do. Their tables are bounded
///   (``init(startingOverPast:)``): one more key than the bound first forgets every key.
///
/// Keys are compared as bytes, as LMDB compares the keys they are stored under (two different
/// byte sequences are two keys even when Unicode calls them equivalent). Open addressing with
/// linear probing over a seeded multiplicative hash; the key found or added last is checked first
/// (consecutive records of one session). A new table allocates nothing until its first key.
///
/// Inlinable, and public only to the package's own modules (`@_spi(Internals)`): the projection
/// rebuild and the store's record decoding call it for every field of every record, and this
/// compiler (Swift 6.3) inlines an `@inlinable package` declaration into no other module.
@_spi(Internals) public struct UTF8KeyTable {
    /// The keys, by index (in insertion order); empty for a key added by ``insert(bytes:)``.
    @inlinable
    public var keys: [String] { strings }
    @usableFromInline var strings: [String] = []
    /// Every key's UTF-8, back to back.
    @usableFromInline var arena: [UInt8] = []
    /// Each key's hash and where its bytes are in `arena`, by index.
    @usableFromInline var entries: [Entry] = []
    /// Key indices, -1 when free; the count is a power of two (none until the first insert, so an
    /// unused table allocates nothing).
    @usableFromInline var slots: [Int32] = []
    @usableFromInline var lastFound = -1
    /// The process's seed, read once by the first insert (not by every hash).
    @usableFromInline var seed: UInt64 = 0
    /// The most keys the table holds (``init(startingOverPast:)``).
    @usableFromInline let maximumCount: Int

    /// A key's hash and bytes (one array, so that a probe reads one element).
    @usableFromInline
    struct Entry {
        @usableFromInline let hash: Int
        @usableFromInline let start: Int
        @usableFromInline let count: Int

        @inlinable
        init(hash: Int, start: Int, count: Int) {
            self.hash = hash
            self.start = start
            self.count = count
        }
    }

    /// An empty table without a bound: every key stays (a fold's keys, each with its state).
    @inlinable
    public init() {
        maximumCount = .max
    }

    /// An empty table of at most `maximumCount` keys: adding one more first forgets every key
    /// (``removeAll()``), so the added key's index is 0. For memories of strings that only save
    /// work (a run of records interning the texts they repeat), whose memory must stay bounded
    /// whatever they read.
    @inlinable
    public init(startingOverPast maximumCount: Int) {
        precondition(maximumCount > 0, "a table must hold at least one key")
        self.maximumCount = maximumCount
    }

    /// The number of keys.
    @inlinable
    public var count: Int { strings.count }

    /// The index of the key whose UTF-8 is `bytes`, or `nil`.
    @inlinable @inline(__always)
    public mutating func index(of bytes: UnsafeRawBufferPointer) -> Int? {
        if lastFound >= 0, keyEquals(lastFound, bytes) { return lastFound }
        if slots.isEmpty { return nil }
        let hash = Self.hash(bytes, seed: seed)
        let mask = slots.count - 1
        var slot = hash & mask
        while true {
            let candidate = Int(slots[slot])
            if candidate < 0 { return nil }
            if entries[candidate].hash == hash, keyEquals(candidate, bytes) {
                lastFound = candidate
                return candidate
            }
            slot = (slot + 1) & mask
        }
    }

    /// The index of `key`, or `nil`.
    @inlinable
    public mutating func index(of key: String) -> Int? {
        var key = key
        return key.withUTF8 { index(of: UnsafeRawBufferPointer($0)) }
    }

    /// Adds `key` (absent, with UTF-8 `bytes`) and returns its index: 0 when the table is new or
    /// has just started over, past its bound (``init(startingOverPast:)``).
    @inlinable
    public mutating func insert(_ key: String, bytes: UnsafeRawBufferPointer) -> Int {
        if strings.count >= maximumCount { startOver() }
        if (strings.count + 1) * 2 > slots.count { grow() }
        let index = strings.count
        let hash = Self.hash(bytes, seed: seed)
        strings.append(key)
        entries.append(Entry(hash: hash, start: arena.count, count: bytes.count))
        arena.append(contentsOf: bytes)
        place(index, hash: hash)
        lastFound = index
        return index
    }

    /// Adds the absent byte sequence `bytes` without making a `String` of it (its entry in
    /// ``keys`` is empty) and returns its index: the table as an index of values its user keeps
    /// beside it, by that index (`RecentStrings`' string lists, keyed by their encoded bytes).
    @inlinable
    public mutating func insert(bytes: UnsafeRawBufferPointer) -> Int {
        insert("", bytes: bytes)
    }

    /// The index of the key whose UTF-8 is `bytes`, adding it first when absent.
    @inlinable @inline(__always)
    public mutating func intern(_ bytes: UnsafeRawBufferPointer) -> Int {
        if let index = index(of: bytes) { return index }
        return insert(String(decoding: bytes, as: UTF8.self), bytes: bytes)
    }

    /// The key whose UTF-8 is `bytes`, added first when absent (see ``insert(_:bytes:)``): equal
    /// byte sequences get one shared `String`. Invalid UTF-8 is repaired in the `String` (as `String(decoding:as:)`
    /// does) but keyed by the bytes as they are.
    @inlinable @inline(__always)
    public mutating func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let index = intern(bytes)
        return strings[index]
    }

    /// Forgets every key (the bound stays).
    @inlinable
    public mutating func removeAll() {
        strings.removeAll()
        arena.removeAll()
        entries.removeAll()
        slots = []
        lastFound = -1
    }

    /// ``removeAll()`` past the bound, out of line: the lookups it is inlined into stay small.
    @usableFromInline @inline(never)
    mutating func startOver() {
        removeAll()
    }

    @inlinable @inline(__always)
    func keyEquals(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let entry = entries[index]
        guard entry.count == bytes.count else { return false }
        return arena.withUnsafeBytes { arena in
            UnsafeRawBufferPointer(rebasing: arena[entry.start..<entry.start + entry.count]).equals(bytes)
        }
    }

    /// A per-process random seed, so that which keys collide cannot be chosen in advance.
    @usableFromInline static let processSeed = UInt64.random(in: .min ... .max) | 1

    /// A fast multiplicative hash of short keys, eight bytes at a time, the last (partial) word
    /// read as the last eight bytes, overlapping the one before; keys shorter than eight bytes are
    /// read as one word (`ByteWord.short`). (Session ids and state ids are a few
    /// dozen bytes; the standard `Hasher` costs several times more per key.)
    @inlinable @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> Int {
        let count = bytes.count
        var hash = seed ^ (UInt64(count) &* 0x9E37_79B9_7F4A_7C15)
        if count >= 8 {
            var offset = 0
            while count - offset > 8 {
                hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
                hash ^= hash >> 29
                offset += 8
            }
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) &* 0x94D0_49BB_1331_11EB
        } else if count > 0 {
            hash = (hash ^ ByteWord.short(bytes)) &* 0x94D0_49BB_1331_11EB
        }
        hash ^= hash >> 31
        hash = hash &* 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 32
        return Int(truncatingIfNeeded: hash)
    }

    @inlinable
    mutating func place(_ index: Int, hash: Int) {
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(index)
    }

    @inlinable
    mutating func grow() {
        if slots.isEmpty {
            seed = Self.processSeed
            // A reader of a few records (a resume) grows no array again for its first keys.
            strings.reserveCapacity(8)
            entries.reserveCapacity(8)
            arena.reserveCapacity(256)
        }
        slots = Array(repeating: -1, count: max(16, slots.count * 2))
        for index in entries.indices { place(index, hash: entries[index].hash) }
    }
}
