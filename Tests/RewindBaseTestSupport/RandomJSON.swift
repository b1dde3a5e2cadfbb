import RewindValues

/// Random `JSONValue`s that exercise the writer and parser: awkward strings (controls, quotes,
/// slashes, non-BMP scalars), integers, decimals and arbitrary finite doubles, nesting.
public enum RandomJSON {
    /// A random value, nested at most four levels below `depth`.
    public static func value(depth: Int = 0, using generator: inout SeededRandom) -> JSONValue {
        let kind = Int.random(in: depth >= 4 ? 0...3 : 0...5, using: &generator)
        switch kind {
        case 0: return Bool.random(using: &generator) ? .null : .bool(Bool.random(using: &generator))
        case 1: return .number(number(using: &generator))
        case 2, 3: return .string(string(using: &generator))
        case 4:
            let count = Int.random(in: 0...5, using: &generator)
            return .array((0..<count).map { _ in value(depth: depth + 1, using: &generator) })
        default:
            let count = Int.random(in: 0...5, using: &generator)
            var members: [String: JSONValue] = [:]
            for _ in 0..<count {
                members[string(using: &generator)] = value(depth: depth + 1, using: &generator)
            }
            return .object(members)
        }
    }

    /// A random object (a container, so every strict prefix of its text is incomplete).
    public static func object(using generator: inout SeededRandom) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 1...6, using: &generator) {
            members[string(using: &generator)] = value(depth: 1, using: &generator)
        }
        return .object(members)
    }

    /// A random finite `Double`.
    public static func number(using generator: inout SeededRandom) -> Double {
        switch Int.random(in: 0...4, using: &generator) {
        case 0: return Double(Int.random(in: -1000...1000, using: &generator))
        case 1: return Double(Int64.random(in: -(1 << 53)...(1 << 53), using: &generator))
        case 2: return Double(Int.random(in: -100_000...100_000, using: &generator)) / 100
        case 3:
            return [0.0, -0.0, 0.1, 1e15, 1e16, 1e-7, .leastNonzeroMagnitude, 1.7976931348623157e308, -2.5e-5]
                .randomElement(using: &generator) ?? 0
        default:
            while true {
                let candidate = Double(bitPattern: generator.next())
                if candidate.isFinite { return candidate }
            }
        }
    }

    /// A random string of awkward characters.
    public static func string(using generator: inout SeededRandom) -> String {
        let pieces: [String] = [
            "a", "Z", "/", "\"", "\\", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "日本", "😀", "\u{2028}", " ",
            "\u{FFFF}",
        ]
        var string = ""
        for _ in 0..<Int.random(in: 0...8, using: &generator) {
            string += pieces.randomElement(using: &generator) ?? ""
        }
        return string
    }
}
