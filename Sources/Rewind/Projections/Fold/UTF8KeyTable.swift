import Foundation

/// A set of strings looked up by their UTF-8 bytes without creating a `String`: a fold finds a
/// record's key (or interns a state id) straight from the record's borrowed bytes.
///
/// Keys are compared as bytes, as LMDB compares the keys they are stored under (two different
/// byte sequences are two keys even when Unicode calls them equivalent). Open addressing with
/// linear probing over a seeded multiplicative hash; the key looked up last is checked first
/// (consecutive records of one session).
struct UTF8KeyTable {
    /// The keys, by index (in insertion order).
    private(set) var keys: [String] = []
    /// Every key's UTF-8, back to back.
    private var arena: [UInt8] = []
    /// Where each key's bytes start in `arena` (and end: the next start, or the arena's end).
    private var starts: [Int] = []
    private var hashes: [Int] = []
    /// Key indices, -1 when free; the count is a power of two (none until the first insert, so an
    /// unused table allocates nothing).
    private var slots: [Int32] = []
    private var lastFound = -1

    /// The number of keys.
    var count: Int { keys.count }

    /// The index of the key whose UTF-8 is `bytes`, or `nil`.
    @inline(__always)
    mutating func index(of bytes: UnsafeRawBufferPointer) -> Int? {
        if lastFound >= 0, keyEquals(lastFound, bytes) { return lastFound }
        if slots.isEmpty { return nil }
        let hash = Self.hash(bytes)
        let mask = slots.count - 1
        var slot = hash & mask
        while true {
            let candidate = Int(slots[slot])
            if candidate < 0 { return nil }
            if hashes[candidate] == hash, keyEquals(candidate, bytes) {
                lastFound = candidate
                return candidate
            }
            slot = (slot + 1) & mask
        }
    }

    /// The index of `key`, or `nil`.
    mutating func index(of key: String) -> Int? {
        var key = key
        return key.withUTF8 { index(of: UnsafeRawBufferPointer($0)) }
    }

    /// Adds `key` (absent, with UTF-8 `bytes`) and returns its index.
    mutating func insert(_ key: String, bytes: UnsafeRawBufferPointer) -> Int {
        if (keys.count + 1) * 2 > slots.count { grow() }
        let index = keys.count
        let hash = Self.hash(bytes)
        keys.append(key)
        starts.append(arena.count)
        arena.append(contentsOf: bytes)
        hashes.append(hash)
        place(index, hash: hash)
        lastFound = index
        return index
    }

    /// The index of the key whose UTF-8 is `bytes`, adding it first when absent.
    @inline(__always)
    mutating func intern(_ bytes: UnsafeRawBufferPointer) -> Int {
        if let index = index(of: bytes) { return index }
        return insert(String(decoding: bytes, as: UTF8.self), bytes: bytes)
    }

    /// The key whose UTF-8 is `bytes`, added first when absent: equal byte sequences get one
    /// shared `String`.
    @inline(__always)
    mutating func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let index = intern(bytes)
        return keys[index]
    }

    /// Forgets every key.
    mutating func removeAll() {
        keys.removeAll()
        arena.removeAll()
        starts.removeAll()
        hashes.removeAll()
        slots = []
        lastFound = -1
    }

    @inline(__always)
    private func keyEquals(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let start = starts[index]
        let end = index + 1 < starts.count ? starts[index + 1] : arena.count
        guard end - start == bytes.count else { return false }
        guard bytes.count > 0, let right = bytes.baseAddress else { return true }
        return arena.withUnsafeBytes { arena in
            guard let base = arena.baseAddress else { return false }
            return memcmp(base + start, right, bytes.count) == 0
        }
    }

    /// A per-process random seed, so that which keys collide cannot be chosen in advance.
    private static let seed = UInt64.random(in: .min ... .max) | 1

    /// A fast multiplicative hash of short keys, eight bytes at a time (session ids and state
    /// ids are a few dozen bytes; the standard `Hasher` costs several times more per key).
    @inline(__always)
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hash = seed ^ (UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15)
        var offset = 0
        let count = bytes.count
        while count - offset >= 8 {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 29
            offset += 8
        }
        if offset < count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < count {
                tail |= UInt64(bytes[offset]) << shift
                shift += 8
                offset += 1
            }
            hash = (hash ^ tail) &* 0x94D0_49BB_1331_11EB
        }
        hash ^= hash >> 31
        hash = hash &* 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 32
        return Int(truncatingIfNeeded: hash)
    }

    private mutating func place(_ index: Int, hash: Int) {
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(index)
    }

    private mutating func grow() {
        slots = Array(repeating: -1, count: max(16, slots.count * 2))
        for index in keys.indices { place(index, hash: hashes[index]) }
    }
}
