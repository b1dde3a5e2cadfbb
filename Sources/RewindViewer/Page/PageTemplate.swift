import Foundation
@_spi(Internals) import RewindMachine

/// Assembles the page: the HTML skeleton with the style, the diagram, the data, the archive and
/// the script inline. Nothing refers to another file or to the network.
enum PageTemplate {
    /// The page as UTF-8 bytes. `data` is JSON already safe inside `<script>` (see
    /// ``PageJSONWriter``); `archive`, when given, is embedded verbatim except that each `<`
    /// becomes U+0001 (a byte a session archive never holds: its JSON escapes control
    /// characters), which the download button turns back.
    static func html(title: String, data: [UInt8], diagram: String, archive: Data?, archiveName: String) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + (archive?.count ?? 0) + 64 << 10)
        func add(_ text: String) { out.append(contentsOf: text.utf8) }
        add(#"<!doctype html><html lang="en"><head><meta charset="utf-8">"#)
        add(
            #"<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light dark">"#
        )
        add("<title>\(XMLText.escape(title)) · Rewind</title><style>\(ViewerStyle.css)</style></head><body>")
        add(body(diagram: diagram))
        add(#"<script type="application/json" id="rw-data">"#)
        out.append(contentsOf: data)
        add("</script>")
        // The code before the archive: the page is drawn while the parser still reads the
        // archive (most of a long session's bytes), which only the download button needs.
        add("<script>\(ViewerScript.javascript)</script>")
        if let archive {
            add(#"<script type="text/plain" id="rw-archive" data-name="\#(XMLText.escape(archiveName))">"#)
            for byte in archive { out.append(byte == UInt8(ascii: "<") ? 0x01 : byte) }
            add("</script>")
        }
        add("</body></html>\n")
        return Data(out)
    }

    private static func body(diagram: String) -> String {
        // An SVG inside HTML needs no namespace declaration; dropping it keeps the file free of
        // any URL.
        let svg = diagram.replacingOccurrences(of: #" xmlns="http://www.w3.org/2000/svg""#, with: "")
        return #"""
            <header class="rw-top"><h1 id="rw-title">Rewind</h1><div class="rw-actions">
            <button id="rw-back" hidden>← Funnel</button>
            <button id="rw-download" hidden title="The session's archive, for rewind import">Download session</button>
            <button id="rw-theme" title="Light or dark">◐</button></div></header>
            <main id="rw-session-view" hidden>
            <div id="rw-verify" class="rw-banner" hidden></div>
            <div id="rw-redaction" class="rw-banner" hidden></div>
            <section class="rw-timeline" aria-label="Timeline">
            <div class="rw-controls">
            <button id="rw-first" title="First (Home)">|◀</button><button id="rw-prev" title="Back (←)">◀</button>
            <button id="rw-play" aria-pressed="false" title="Play (space)">▶︎ Play</button>
            <button id="rw-next" title="Forward (→)">▶</button><button id="rw-last" title="Last (End)">▶|</button>
            <select id="rw-speed" title="Speed"><option value="1">1×</option><option value="4">4×</option><option value="16">16×</option><option value="100">100×</option><option value="0">max</option></select>
            <span id="rw-pos" class="rw-pos"></span>
            <input id="rw-search" class="rw-search" type="search" placeholder="Search events and payloads ( / )" aria-label="Search events and payloads">
            <span id="rw-count" class="rw-meta"></span>
            </div>
            <canvas id="rw-canvas" aria-label="Versions over time (long idle gaps compressed)" title="Click or drag to move; scroll or + / − to zoom, 0 to see it all"></canvas>
            <input id="rw-scrubber" type="range" min="0" max="0" value="0" aria-label="Version">
            </section>
            <div class="rw-grid">
            <section class="rw-panel rw-chart"><h2>Statechart</h2><div id="rw-diagram">\#(svg)</div></section>
            <div class="rw-col">
            <section class="rw-panel"><h2>Event</h2><div id="rw-event"></div><ol id="rw-log" class="rw-log"></ol></section>
            <section class="rw-panel" style="margin-top:8px"><h2>Navigation stack</h2><div id="rw-stack" class="rw-stack"></div></section>
            </div>
            <section class="rw-panel"><h2>Data</h2>
            <details class="rw-section" open><summary>State data</summary><div id="rw-state-data" class="rw-tree"></div></details>
            <details class="rw-section" open><summary>Context</summary><div id="rw-context" class="rw-tree"></div></details>
            <details class="rw-section" open><summary>Payload</summary><div id="rw-payload" class="rw-tree"></div></details>
            <details class="rw-section" open><summary><span id="rw-diff-title">Changes</span> <button id="rw-pin" title="Pin this version to diff against (p)">Pin</button></summary><ul id="rw-diff" class="rw-diff"></ul></details>
            </section>
            </div>
            </main>
            <main id="rw-machine-view" hidden>
            <div id="rw-notice" class="rw-banner rw-bad" role="alert" hidden></div>
            <section id="rw-upgrade" class="rw-panel rw-upgrade" hidden><h2 id="rw-upgrade-title">Upgrade check</h2><div id="rw-upgrade-summary" class="rw-banner"></div><div id="rw-upgrade-kinds"></div></section>
            <section class="rw-panel"><h2>Funnel: sessions that reached each state (orange: stopped there)</h2><div id="rw-funnel" class="rw-funnel"></div>
            <div id="rw-stopped"></div><div id="rw-all"></div></section>
            </main>
            """#
    }
}
