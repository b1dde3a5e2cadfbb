import Foundation

/// A session id as the store keys it: compared and hashed by its UTF-8 bytes, as LMDB compares
/// keys. (`String`'s `==` and hash treat canonically equivalent text — "é" as one scalar or as "e"
/// and a combining accent — as equal, which would merge two sessions the store keeps apart.)
struct SessionKey: Hashable, Sendable {
    /// The id's text.
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: SessionKey, rhs: SessionKey) -> Bool {
        let left = lhs.text.utf8, right = rhs.text.utf8
        guard left.count == right.count else { return false }
        // Native strings: one memcmp (as fast as String's own ==, which it replaces on a hot path).
        let same: Bool?? = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in
                guard let l = leftBytes.baseAddress, let r = rightBytes.baseAddress else { return leftBytes.isEmpty }
                return memcmp(l, r, leftBytes.count) == 0
            }
        }
        return (same ?? nil) ?? left.elementsEqual(right)
    }

    func hash(into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            var copy = text
            copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }
}
