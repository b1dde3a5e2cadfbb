import Foundation

/// Text compared, hashed and ordered by its UTF-8 bytes, as the store keys it, not by `String`'s
/// canonical equivalence ("é" as one scalar and "e" with a combining accent are two texts): the
/// identity of ``SessionID`` and of the engine's projection keys.
package enum UTF8Identity {
    /// Whether the two texts have the same UTF-8 bytes.
    package static func equal(_ left: String, _ right: String) -> Bool {
        let leftBytes = left.utf8
        let rightBytes = right.utf8
        guard leftBytes.count == rightBytes.count else { return false }
        // Native strings: one memcmp (as fast as String's own ==).
        let same: Bool?? = leftBytes.withContiguousStorageIfAvailable { l in
            rightBytes.withContiguousStorageIfAvailable { r in
                guard let lBase = l.baseAddress, let rBase = r.baseAddress else { return l.isEmpty }
                return memcmp(lBase, rBase, l.count) == 0
            }
        }
        return (same ?? nil) ?? leftBytes.elementsEqual(rightBytes)
    }

    /// Hashes the text's UTF-8 bytes.
    package static func hash(_ text: String, into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashed == nil {
            var copy = text
            copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    /// Whether `left`'s UTF-8 bytes order before `right`'s.
    package static func precedes(_ left: String, _ right: String) -> Bool {
        left.utf8.lexicographicallyPrecedes(right.utf8)
    }
}
