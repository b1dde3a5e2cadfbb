/// How text that came from outside (session ids, machine, state and event names, values read
/// from a log) is shown on a terminal or in an error message: control characters escaped, so an
/// id holding `ESC [2J` cannot clear the screen nor a newline break a table, and, in messages,
/// shortened, so a 100,000-character id is not echoed whole.
///
/// One implementation for every text printer of the command line and every error description
/// that quotes an id; JSON output needs neither (its writer escapes what it must).
package enum DisplayText {
    /// How many characters of a long text a message shows (``excerpt(_:)``).
    package static let excerptLength = 60

    /// Whether `scalar` is a control character: C0 (U+0000–U+001F), DEL (U+007F) or C1
    /// (U+0080–U+009F). A terminal acts on them instead of showing them.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The first control character of `text` and its 1-based position in Unicode scalars, or `nil`.
    package static func firstControl(in text: String) -> (scalar: Unicode.Scalar, position: Int)? {
        for (offset, scalar) in text.unicodeScalars.enumerated() where isControl(scalar) {
            return (scalar, offset + 1)
        }
        return nil
    }

    /// A control character named for a message: `U+001B (ESC)`, `U+000A (line feed)`, `U+009B`.
    package static func name(of scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let names: [UInt32: String] = [
            0x00: "NUL", 0x07: "BEL", 0x08: "backspace", 0x09: "tab", 0x0A: "line feed",
            0x0D: "carriage return", 0x1B: "ESC", 0x7F: "DEL", 0x9B: "CSI",
        ]
        return names[scalar.value].map { "\(code) (\($0))" } ?? code
    }

    /// `text` with each control character written as an escape (`\n`, `\r`, `\t`, `\e` for ESC,
    /// `\u{7F}` for the others); every other character as it is.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.append(scalar)
                continue
            }
            let escape: String
            switch scalar.value {
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x1B: escape = "\\e"
            default: escape = "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
            result.append(contentsOf: escape.unicodeScalars)
        }
        return String(result)
    }

    /// `text` for an error message: escaped (``escaped(_:)``) and, when it has more than
    /// ``excerptLength`` characters, its first ``excerptLength`` followed by
    /// `... (N characters)`.
    package static func excerpt(_ text: String) -> String {
        let count = text.count
        guard count > excerptLength else { return escaped(text) }
        return escaped(String(text.prefix(excerptLength))) + "... (\(count) characters)"
    }
}
