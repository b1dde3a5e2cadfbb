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
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            var copy = text
            copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }
}
