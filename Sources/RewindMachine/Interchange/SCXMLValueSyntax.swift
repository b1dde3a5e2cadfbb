/// The textual forms of SCXML attribute values that the importer parses and the exporter writes:
/// delays, event descriptor lists, id lists and Rewind's navigation declarations.
enum SCXMLValueSyntax {
    /// Splits an attribute holding a whitespace-separated list (`target`, `initial`, `event`).
    static func list(_ value: String) -> [String] {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(String.init)
    }

    /// Normalises one event descriptor: `foo.*` and `foo.` become `foo` (prefix matching is
    /// token-based anyway); `*` stays. Returns `nil` for descriptors with a misplaced `*`.
    static func normalizedEventDescriptor(_ descriptor: String) -> String? {
        if descriptor == "*" { return descriptor }
        var result = Substring(descriptor)
        if result.hasSuffix(".*") {
            result = result.dropLast(2)
        } else if result.hasSuffix(".") {
            result = result.dropLast()
        }
        if result.isEmpty || result.contains("*") { return nil }
        return String(result)
    }

    /// Parses a CSS2-style duration (`"1s"`, `"500ms"`, `"1.5s"`, `".25s"`): the SCXML side of
    /// a `<send>`'s `Duration`. Returns `nil` for anything else, for negative or
    /// fractional-millisecond durations and for durations beyond 2^31 ms.
    static func delay(fromText text: String) -> Duration? {
        milliseconds(fromDelay: text).map { .milliseconds($0) }
    }

    /// The whole milliseconds of a CSS2-style duration, as ``delay(fromText:)`` reads it.
    private static func milliseconds(fromDelay text: String) -> Int? {
        let trimmed = text.trimmingWhitespace()
        let scale: Int
        let number: Substring
        if trimmed.hasSuffix("ms") {
            scale = 1
            number = trimmed.dropLast(2)
        } else if trimmed.hasSuffix("s") {
            scale = 1000
            number = trimmed.dropLast()
        } else {
            return nil
        }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !number.isEmpty, parts.count <= 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            parts.contains(where: { !$0.isEmpty })
        else { return nil }
        let whole = parts[0].prefix(12)
        let fraction = parts.count == 2 ? parts[1] : ""
        guard parts[0].count <= 12 else { return nil }
        var milliseconds = (Int(whole) ?? 0) * scale
        // Fractional digits: each must fit the scale exactly (1.5s = 1500 ms; 1.5ms is refused).
        var unit = scale
        for digit in fraction {
            guard let value = digit.wholeNumberValue else { return nil }
            if unit % 10 != 0 {
                if value != 0 { return nil }
                continue
            }
            unit /= 10
            milliseconds += value * unit
        }
        guard milliseconds <= Int(Int32.max) else { return nil }
        return milliseconds
    }

    /// Writes a delay the way people do, in whole milliseconds: whole seconds as `"2s"`, anything
    /// else as `"1500ms"`; `nil` for no delay (zero milliseconds).
    static func text(ofDelay delay: Duration) -> String? {
        let milliseconds = delay.wholeMilliseconds
        if milliseconds == 0 { return nil }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        return "\(milliseconds)ms"
    }

    /// The `rewind:navigation` keyword of a declaration and its `rewind:screen`, if any.
    static func navigationAttributes(_ navigation: NavigationDeclaration) -> (keyword: String, screen: String?) {
        switch navigation {
        case .push(let screen): return ("push", screen)
        case .replace(let screen): return ("replace", screen)
        case .setRoot(let screen): return ("setRoot", screen)
        case .pop: return ("pop", nil)
        case .popToRoot: return ("popToRoot", nil)
        case .popTo(let screen): return ("popTo", screen)
        }
    }

    /// The declaration named by `rewind:navigation` and `rewind:screen`, or `nil` when they do
    /// not make one (unknown keyword, `popTo` without a screen, a screen on `pop`).
    static func navigation(keyword: String, screen: String?) -> NavigationDeclaration? {
        switch keyword {
        case "push": return .push(screen: screen)
        case "replace": return .replace(screen: screen)
        case "setRoot": return .setRoot(screen: screen)
        case "pop": return screen == nil ? .pop : nil
        case "popToRoot": return screen == nil ? .popToRoot : nil
        case "popTo": return screen.map { .popTo(screen: $0) }
        default: return nil
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and line breaks.
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }),
            let last = lastIndex(where: { !isSpace($0) })
        else { return Substring() }
        return Substring(self[first...last])
    }
}
