/// The stylesheet embedded in every diagram: every rule is scoped under the `<svg>`'s class
/// `rw-diagram`, so a page embedding the diagram is not restyled by it. Light colours by default,
/// dark ones under `prefers-color-scheme: dark`; `.rw-active` (a state group) and `.rw-taken` (a
/// transition group) are the highlights a viewer toggles. A page with a theme toggle applies
/// ``light`` and ``dark`` under its own selectors too (``scoped(_:under:)``).
enum DiagramStyle {
    /// The rules in light colours (and the layout, the same in both schemes).
    static let light = """
        .rw-diagram{font-family:\(FontStack.sans);font-size:13px}
        .rw-diagram text{fill:#1f2328}
        .rw-diagram .rw-title{font-size:14px;font-weight:600;fill:#57606a}
        .rw-diagram .rw-box{fill:#ffffff;stroke:#57606a;stroke-width:1.2}
        .rw-diagram .rw-compound>.rw-box,.rw-diagram .rw-parallel>.rw-box{fill:#f6f8fa}
        .rw-diagram .rw-compound .rw-compound>.rw-box,.rw-diagram .rw-compound .rw-parallel>.rw-box{fill:#eceff3}
        .rw-diagram .rw-region>.rw-box{fill:none;stroke:none}
        .rw-diagram .rw-inner{fill:none;stroke:#57606a;stroke-width:1.2}
        .rw-diagram .rw-header{font-weight:600}
        .rw-diagram .rw-history .rw-name{font-size:11px;font-weight:700}
        .rw-diagram .rw-separator{stroke:#8c959f;stroke-width:1.2;stroke-dasharray:5 4}
        .rw-diagram .rw-edge{fill:none;stroke:#6e7781;stroke-width:1.3}
        .rw-diagram .rw-arrowhead{fill:#6e7781}
        .rw-diagram .rw-dashed .rw-edge{stroke-dasharray:4 3}
        .rw-diagram .rw-label{font-size:11px;fill:#57606a;paint-order:stroke;stroke:#ffffff;stroke-width:3px;stroke-linejoin:round}
        .rw-diagram .rw-initial .rw-dot{fill:#1f2328}
        .rw-diagram .rw-initial .rw-edge{stroke:#1f2328}
        .rw-diagram .rw-initial .rw-arrowhead{fill:#1f2328}
        .rw-diagram .rw-active>.rw-box{fill:#fff1bf;stroke:#bf8700;stroke-width:2.4}
        .rw-diagram .rw-active.rw-compound>.rw-box,.rw-diagram .rw-active.rw-parallel>.rw-box{fill:#fff8dc}
        .rw-diagram .rw-active.rw-region>.rw-box{fill:#fffbea;stroke:none}
        .rw-diagram .rw-active>.rw-name{font-weight:700}
        .rw-diagram .rw-taken .rw-edge{stroke:#cf222e;stroke-width:2.6;stroke-dasharray:none}
        .rw-diagram .rw-taken .rw-arrowhead{fill:#cf222e}
        .rw-diagram .rw-taken .rw-label{fill:#cf222e;font-weight:700}
        """

    /// The rules the dark scheme changes.
    static let dark = """
        .rw-diagram text{fill:#e6edf3}
        .rw-diagram .rw-title{fill:#9198a1}
        .rw-diagram .rw-box{fill:#161b22;stroke:#9198a1}
        .rw-diagram .rw-compound>.rw-box,.rw-diagram .rw-parallel>.rw-box{fill:#1c2129}
        .rw-diagram .rw-compound .rw-compound>.rw-box,.rw-diagram .rw-compound .rw-parallel>.rw-box{fill:#232a33}
        .rw-diagram .rw-region>.rw-box{fill:none;stroke:none}
        .rw-diagram .rw-inner{stroke:#9198a1}
        .rw-diagram .rw-separator{stroke:#6e7681}
        .rw-diagram .rw-edge{stroke:#8b949e}
        .rw-diagram .rw-arrowhead{fill:#8b949e}
        .rw-diagram .rw-label{fill:#9198a1;stroke:#0d1117}
        .rw-diagram .rw-initial .rw-dot,.rw-diagram .rw-initial .rw-arrowhead{fill:#e6edf3}
        .rw-diagram .rw-initial .rw-edge{stroke:#e6edf3}
        .rw-diagram .rw-active>.rw-box{fill:#4d3800;stroke:#e3b341}
        .rw-diagram .rw-active.rw-compound>.rw-box,.rw-diagram .rw-active.rw-parallel>.rw-box{fill:#2e2a1a}
        .rw-diagram .rw-active.rw-region>.rw-box{fill:#2a2616;stroke:none}
        .rw-diagram .rw-taken .rw-edge{stroke:#ff7b72}
        .rw-diagram .rw-taken .rw-arrowhead{fill:#ff7b72}
        .rw-diagram .rw-taken .rw-label{fill:#ff7b72}
        """

    static let css = light + "\n@media (prefers-color-scheme:dark){\n" + dark + "\n}"

    /// `rules` (one rule a line, as ``light`` and ``dark`` are written) with every selector
    /// prefixed by `scope`: `.rw-diagram text{…}` under `:root[data-theme=dark]` becomes
    /// `:root[data-theme=dark] .rw-diagram text{…}`.
    static func scoped(_ rules: String, under scope: String) -> String {
        rules.split(separator: "\n").map { line -> String in
            guard let brace = line.firstIndex(of: "{") else { return String(line) }
            let selectors = line[..<brace].split(separator: ",").map { "\(scope) \($0)" }
            return selectors.joined(separator: ",") + line[brace...]
        }.joined(separator: "\n")
    }
}

/// The fonts the page and the diagram ask for: the system's UI font, then the usual CJK fonts
/// of macOS, iOS, Windows and Linux (so kanji and kana are drawn, not shown as empty boxes,
/// wherever one of them is installed), then the generic family.
enum FontStack {
    static let sans = [
        "system-ui", "-apple-system", "BlinkMacSystemFont", "\"Segoe UI\"", "Helvetica", "Arial",
        "\"PingFang SC\"", "\"Hiragino Sans\"", "\"Hiragino Kaku Gothic ProN\"", "\"Noto Sans CJK JP\"",
        "\"Noto Sans CJK SC\"", "\"Noto Sans JP\"", "\"Source Han Sans JP\"", "\"Source Han Sans SC\"",
        "\"Yu Gothic UI\"", "\"Yu Gothic\"", "Meiryo", "\"Microsoft YaHei\"", "\"Microsoft JhengHei\"",
        "\"WenQuanYi Micro Hei\"", "sans-serif",
    ].joined(separator: ",")
}
