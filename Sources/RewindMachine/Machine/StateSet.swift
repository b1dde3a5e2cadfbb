/// A set of state indices as bits: inline (no allocation) for charts of up to 64 states, an array
/// of words beyond. Evaluation uses it for the active configuration, exit and entry sets.
struct StateSet: Equatable {
    private var word: UInt64 = 0
    private var words: [UInt64]

    /// An empty set able to hold indices `0 ..< count`.
    init(count: Int) {
        words = count <= 64 ? [] : Array(repeating: 0, count: (count + 63) / 64)
    }

    /// Whether `index` is in the set.
    subscript(index: Int) -> Bool {
        @inline(__always) get {
            if words.isEmpty { return (word >> UInt64(index)) & 1 == 1 }
            return (words[index >> 6] >> UInt64(index & 63)) & 1 == 1
        }
        @inline(__always) set {
            if words.isEmpty {
                if newValue { word |= 1 << UInt64(index) } else { word &= ~(1 << UInt64(index)) }
            } else {
                let bit: UInt64 = 1 << UInt64(index & 63)
                if newValue { words[index >> 6] |= bit } else { words[index >> 6] &= ~bit }
            }
        }
    }

    /// Whether the set is empty.
    var isEmpty: Bool { word == 0 && words.allSatisfy { $0 == 0 } }
}
