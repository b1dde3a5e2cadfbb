import Foundation

/// The symbols text output draws with: Unicode box drawing and arrows under a UTF-8 locale, ASCII
/// otherwise (a `LANG=C` terminal shows UTF-8 bytes as garbage).
struct Glyphs: Sendable {
    /// Whether the symbols are Unicode.
    var unicode: Bool

    /// The done part of a bar (`━` or `=`).
    var barDone: String { unicode ? "━" : "=" }
    /// The marked position of a bar (`●` or `o`).
    var barMark: String { unicode ? "●" : "o" }
    /// The rest of a bar (`─` or `-`).
    var barRest: String { unicode ? "─" : "-" }
    /// Between entries of a navigation stack (`›` or `>`).
    var stackSeparator: String { unicode ? "›" : ">" }
    /// Between parts of a line (`·` or `|`).
    var dot: String { unicode ? "·" : "|" }
    /// From one thing to another (`→` or `->`).
    var arrow: String { unicode ? "→" : "->" }
    /// A whole stack becoming another (`⇒` or `=>`).
    var doubleArrow: String { unicode ? "⇒" : "=>" }
    /// The step keys (`←/→` or `Left/Right`).
    var stepKeys: String { unicode ? "←/→" : "Left/Right" }
    /// The scroll keys (`↑/↓` or `Up/Down`).
    var scrollKeys: String { unicode ? "↑/↓" : "Up/Down" }
    /// The filled part of a progress bar (`█` or `#`).
    var progressDone: String { unicode ? "█" : "#" }
    /// The rest of a progress bar (`░` or `.`).
    var progressRest: String { unicode ? "░" : "." }
    /// No states, before a session's first record (`∅` or `-`).
    var emptySet: String { unicode ? "∅" : "-" }
    /// Something left out or still going (`…` or `...`).
    var ellipsis: String { unicode ? "…" : "..." }
    /// Between the ends of a range (`–` or `-`).
    var rangeDash: String { unicode ? "–" : "-" }
    /// Microseconds (`µs` or `us`).
    var microseconds: String { unicode ? "µs" : "us" }

    /// The glyphs for the process's locale.
    static let current = Glyphs(unicode: localeIsUTF8(ProcessInfo.processInfo.environment))

    /// Whether the locale the environment selects for characters is UTF-8: the first of
    /// `LC_ALL`, `LC_CTYPE` and `LANG` that is set and not empty decides; none set is the C locale.
    static func localeIsUTF8(_ environment: [String: String]) -> Bool {
        guard
            let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap({ environment[$0] })
                .first(where: { !$0.isEmpty })
        else { return false }
        let lowered = locale.lowercased()
        return lowered.contains("utf-8") || lowered.contains("utf8")
    }
}
