/// The replay's screen laid out for a terminal's size: the header and the timeline always on
/// top, the key help and a status line (the `g` prompt, a message, or which lines are shown)
/// always at the bottom, and between them the page of the point and its diff that fits, wrapped
/// to the width.
struct ReplayScreen {
    /// The first line: session, machine, version.
    var header: String
    /// The version shown and the session's head, for the timeline.
    var version: UInt64
    /// The session's head version.
    var head: UInt64
    /// The point and what changed, as lines (wrapped to the width here).
    var body: [String]
    /// The `g` prompt or a message; `nil` shows which lines of the body are on screen.
    var status: String?
    /// The first body line shown (clamped by ``lines(columns:rows:)``).
    var scroll: Int
    /// The symbols to draw with.
    var glyphs: Glyphs = .current

    /// The key help line.
    var help: String {
        let dot = " \(glyphs.dot) "
        return [
            "q quit", "\(glyphs.stepKeys) step", "Home/End first/last", "g go to version",
            "\(glyphs.scrollKeys) PgUp/PgDn scroll",
        ].joined(separator: dot)
    }

    /// How many body lines fit under the header and timeline and above the help and status lines.
    static func bodyRows(rows: Int) -> Int { max(0, rows - 4 - (rows >= 20 ? 2 : 0)) }

    /// The body wrapped to `columns`.
    func wrappedBody(columns: Int) -> [String] {
        body.flatMap { $0.wrapped(toWidth: max(1, columns)) }
    }

    /// The largest useful scroll for a terminal of `rows` rows.
    func maximumScroll(columns: Int, rows: Int) -> Int {
        max(0, wrappedBody(columns: columns).count - Self.bodyRows(rows: rows))
    }

    /// The screen's lines, at most `rows`, none wider than `columns`.
    func lines(columns: Int, rows: Int) -> [String] {
        let width = max(1, columns)
        let all = wrappedBody(columns: width)
        let fit = Self.bodyRows(rows: rows)
        let first = min(max(0, scroll), max(0, all.count - fit))
        let shown = Array(all.dropFirst(first).prefix(fit))
        let spacer = rows >= 20
        var lines = [
            header.truncated(toWidth: width),
            ReplayScreen.timeline(version: version, head: head, columns: width, glyphs: glyphs),
        ]
        if spacer { lines.append("") }
        lines += shown
        if spacer { lines.append("") }
        let position =
            all.count > fit
            ? "lines \(first + 1)-\(first + shown.count) of \(all.count) (\(glyphs.scrollKeys) PgUp/PgDn)"
            : ""
        lines.append(help.truncated(toWidth: width))
        lines.append((status ?? position).truncated(toWidth: width))
        return Array(lines.prefix(max(1, rows)))
    }

    /// A bar of the session with the current version marked, `[━━━━━●───────] 5/12`, at most 40
    /// cells and never wider than `columns`.
    static func timeline(version: UInt64, head: UInt64, columns: Int = 80, glyphs: Glyphs = .current) -> String {
        let label = " \(version)/\(head)"
        let room = max(1, columns - 2 - label.count)
        let cells = max(1, min(40, room, Int(clamping: head)))
        // Integer arithmetic: the floating-point ratio fell one cell short for some versions
        // (16 of 23, 32 of 40), marking two versions in one cell and none in the next.
        let position = head <= 1 ? 0 : Int((version - 1) * UInt64(cells - 1) / (head - 1))
        let bar = (0..<cells).map { $0 < position ? glyphs.barDone : $0 == position ? glyphs.barMark : glyphs.barRest }
        return "[\(bar.joined())]\(label)"
    }
}

extension Character {
    /// The cells the character takes on a terminal: 2 for East Asian wide and fullwidth
    /// characters and emoji, 0 for combining marks and controls, else 1.
    var terminalWidth: Int {
        guard let scalar = unicodeScalars.first else { return 0 }
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if scalar.properties.generalCategory == .nonspacingMark { return 0 }
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD,
        ]
        return wide.contains { $0.contains(value) } ? 2 : 1
    }
}

extension String {
    /// The cells the string takes on a terminal.
    var terminalWidth: Int { reduce(0) { $0 + $1.terminalWidth } }

    /// The longest prefix that fits in `width` cells.
    func truncated(toWidth width: Int) -> String {
        var used = 0
        var result = ""
        for character in self {
            let cells = character.terminalWidth
            if used + cells > width { break }
            used += cells
            result.append(character)
        }
        return result
    }

    /// The string cut into lines of at most `width` cells (an empty string is one empty line).
    func wrapped(toWidth width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        var used = 0
        for character in self {
            let cells = character.terminalWidth
            if used + cells > width, !line.isEmpty {
                lines.append(line)
                line = ""
                used = 0
            }
            line.append(character)
            used += cells
        }
        lines.append(line)
        return lines
    }
}
