import Rewind

/// Orders text the way people count: runs of digits compare as numbers, so `kanji-27` comes
/// before `kanji-102`; the rest compares character by character.
func naturallyPrecedes(_ a: String, _ b: String) -> Bool {
    var left = a.unicodeScalars[...]
    var right = b.unicodeScalars[...]
    while let l = left.first, let r = right.first {
        if l.properties.numericType == .decimal, l.isASCII, r.properties.numericType == .decimal, r.isASCII {
            let leftDigits = left.prefix { $0.isASCII && $0.properties.numericType == .decimal }
            let rightDigits = right.prefix { $0.isASCII && $0.properties.numericType == .decimal }
            left = left.dropFirst(leftDigits.count)
            right = right.dropFirst(rightDigits.count)
            let leftValue = leftDigits.drop { $0 == "0" }
            let rightValue = rightDigits.drop { $0 == "0" }
            if leftValue.count != rightValue.count { return leftValue.count < rightValue.count }
            for (x, y) in zip(leftValue, rightValue) where x != y { return x.value < y.value }
            if leftDigits.count != rightDigits.count { return leftDigits.count < rightDigits.count }
            continue
        }
        if l != r { return l.value < r.value }
        left = left.dropFirst()
        right = right.dropFirst()
    }
    return left.isEmpty && !right.isEmpty
}

extension [SessionInfo] {
    /// Sorts the sessions by id in natural order (``naturallyPrecedes(_:_:)``), as `sessions`
    /// and `verify` list them.
    mutating func sortNaturally() {
        sort { naturallyPrecedes($0.session.rawValue, $1.session.rawValue) }
    }
}
