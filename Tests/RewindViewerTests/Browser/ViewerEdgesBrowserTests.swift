import Foundation
import Rewind
import RewindTestSupport
import RewindViewer
import Synchronization
import Testing

/// Runs `body` with a fresh browser of `width`×`height` and quits it, whether `body` throws or not.
func browsing(
    width: Int = 1280, height: Int = 800, _ body: (WebDriver) async throws -> Void
) async throws {
    let driver = try await WebDriver.start(width: width, height: height)
    do {
        try await body(driver)
    } catch {
        await driver.quit()
        throw error
    }
    await driver.quit()
}

/// Opens `url` and waits for the page's script to have drawn it.
func openPage(_ driver: WebDriver, _ url: URL, fragment: String? = nil) async throws {
    var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
    components.fragment = fragment
    try await driver.open(try #require(components.url))
    try await driver.wait(until: "document.documentElement.getAttribute('data-ready') === '1'")
}

/// The session viewer's rough edges of issue 33, each checked in headless Chromium.
extension ViewerBrowserTests {
    @Suite struct ViewerEdgesBrowserTests {
        struct Row: Decodable {
            var v: UInt64
            var event: String
            var target: String
            var payload: String?
        }

        struct Rect: Decodable {
            var x: Double
            var w: Double
            var row: Int
            var top: Double
            var bottom: Double
        }

        struct Timeline: Decodable {
            struct Pin: Decodable {
                var version: UInt64
                var x: Double
            }
            struct Zoom: Decodable {
                var lo: Double
                var hi: Double
            }
            var width: Double
            var labels: [Rect]
            var pin: Pin?
            var zoom: Zoom
            /// The current version.
            var version: UInt64
            /// The versions at the timeline's left and right ends.
            var first: UInt64
            var last: UInt64
        }

        static func rows(_ driver: WebDriver) async throws -> [Row] {
            let text = try #require(
                try await driver.execute(
                    """
                    return JSON.stringify(Array.from(document.querySelectorAll('#rw-log li[data-v]')).map(function (li) {
                      var pl = li.querySelector('.rw-pl');
                      return { v: +li.getAttribute('data-v'), event: li.querySelector('.rw-ev').textContent,
                               target: li.querySelector('.rw-target').textContent, payload: pl ? pl.textContent : null }; }));
                    """) as? String)
            return try JSONDecoder().decode([Row].self, from: Data(text.utf8))
        }

        static func timeline(_ driver: WebDriver) async throws -> Timeline {
            let text = try #require(
                try await driver.execute("return JSON.stringify(window.rewindViewer.timeline());") as? String)
            return try JSONDecoder().decode(Timeline.self, from: Data(text.utf8))
        }

        /// The machine page of the demo's kanji sessions.
        static func machinePage(_ demo: DemoPages) async throws -> URL {
            let url = demo.file("edges-machine.html")
            try await demo.run(["view", "--machine", "kanji", "-o", url.path])
            return url
        }

        // 1. Rows say where each record went and what it carried, not only "enter".
        @Test func eventRowsShowTheStatesEnteredAndAPayloadSummary() async throws {
            let demo = try await DemoPages.shared.value
            for machine in ["kanji", "map"] {
                let info = try #require(try demo.sessions().first { $0.machine == machine })
                let session = info.session.rawValue
                let url = demo.file("edges-rows-\(machine).html")
                try await demo.run(["view", session, "-o", url.path])
                try await browsing { driver in
                    try await openPage(driver, url, fragment: "v=1")
                    try await driver.wait(until: "document.querySelectorAll('#rw-log li[data-v]').length > 1")
                    let rows = try await Self.rows(driver)
                    #expect(rows.count >= min(Int(info.headVersion), 8), "\(machine): \(rows.count) rows")
                    var before = Set<String>()
                    if let first = rows.first, first.v > 1 {
                        before = Set(try await demo.state(session, at: first.v - 1).configuration)
                    }
                    for row in rows {
                        let state = try await demo.state(session, at: row.v)
                        #expect(row.event == state.event)
                        let entered = state.activeStates.filter { !before.contains($0) }
                        let expected = Set(entered.isEmpty ? state.activeStates : entered)
                        #expect(row.target.hasPrefix("→ "), "\(machine) v\(row.v): \(row.target)")
                        let shown = Set(row.target.dropFirst(2).components(separatedBy: ", ").filter { !$0.isEmpty })
                        #expect(shown == expected, "\(machine) v\(row.v): shows \(shown), entered \(expected)")
                        switch state.payload {
                        case .null:
                            #expect(row.payload == nil, "\(machine) v\(row.v): no payload, yet '\(row.payload ?? "")'")
                        case .object(let fields):
                            let summary = try #require(row.payload, "\(machine) v\(row.v): payload not summarized")
                            #expect(summary.count <= 48)
                            if let key = fields.keys.sorted().first {
                                #expect(summary.hasPrefix(key + "="), "\(summary)")
                            }
                        default:
                            #expect(row.payload?.isEmpty == false, "\(machine) v\(row.v): payload not summarized")
                        }
                        before = Set(state.configuration)
                    }
                    // The rows are not all alike any more.
                    #expect(Set(rows.map { $0.event + $0.target + ($0.payload ?? "") }).count > 1, "\(rows)")
                }
            }
        }

        // 2. Escape in the search box ends the search.
        @Test func escapeClearsTheSearchAndRestoresTheList() async throws {
            let demo = try await DemoPages.shared.value
            let (url, info) = try await SessionPageBrowserTests.page(demo, name: "edges-escape.html")
            try await browsing { driver in
                try await openPage(driver, url)
                try await driver.press("/")
                try await driver.wait(until: "document.activeElement && document.activeElement.id === 'rw-search'")
                try await driver.type("no-such-thing-anywhere", into: "#rw-search")
                try await driver.wait(until: "document.querySelector('#rw-count').textContent === '0 matches'")
                try await driver.wait(until: "document.querySelector('#rw-log .rw-empty') !== null")
                try await driver.press(WebDriver.Key.escape)
                try await driver.wait(until: "document.querySelector('#rw-count').textContent === ''")
                try await driver.wait(until: "document.querySelectorAll('#rw-log li[data-v]').length > 0")
                let box = try await driver.execute("return document.querySelector('#rw-search').value;") as? String
                #expect(box == "")
                let rows = try await Self.rows(driver)
                #expect(rows.contains { $0.v == info.headVersion }, "the list is around the cursor again")
                // The keys move the cursor again (the box no longer has the focus).
                try await driver.press(WebDriver.Key.home)
                try await driver.wait(until: "document.documentElement.getAttribute('data-version') === '1'")
            }
        }

        // 3. The ◐ toggle restyles the statechart, whatever the system's scheme.
        @Test func theThemeToggleRestylesTheStatechart() async throws {
            let demo = try await DemoPages.shared.value
            let (url, _) = try await SessionPageBrowserTests.page(demo, name: "edges-theme.html")
            // The diagram's title: #57606a in light, #9198a1 in dark (DiagramStyle).
            let title = "getComputedStyle(document.querySelector('#rw-diagram svg .rw-title')).fill"
            let light = "rgb(87, 96, 106)"
            let dark = "rgb(145, 152, 161)"
            for system in ["light", "dark"] {
                try await browsing { driver in
                    try await driver.emulateColorScheme(system)
                    try await openPage(driver, url)
                    try await driver.wait(until: "\(title) === '\(system == "light" ? light : dark)'")
                    try await driver.click("#rw-theme")
                    try await driver.wait(
                        until:
                            "document.documentElement.getAttribute('data-theme') === '\(system == "light" ? "dark" : "light")'"
                    )
                    try await driver.wait(until: "\(title) === '\(system == "light" ? dark : light)'")
                    _ = try Screenshots.write(
                        try await driver.screenshot(), named: "session-theme-system-\(system)-toggled.png")
                    try await driver.click("#rw-theme")
                    try await driver.wait(until: "\(title) === '\(system == "light" ? light : dark)'")
                }
            }
        }

        // 4. At 390 px the funnel's bars have room and the header neither cuts nor wraps.
        @Test func phoneWidthFunnelBarsAndHeaderFit() async throws {
            let demo = try await DemoPages.shared.value
            let machine = try await Self.machinePage(demo)
            let (session, _) = try await SessionPageBrowserTests.page(demo, name: "edges-phone.html")
            try await browsing(width: 390, height: 844) { driver in
                try await openPage(driver, machine)
                try await driver.wait(until: "document.querySelectorAll('#rw-funnel .rw-bar').length > 0")
                // Nothing wider than the phone (a wider page would be zoomed out to fit).
                #expect(try await driver.execute("return window.innerWidth;") as? Int == 390)
                let text = try #require(
                    try await driver.execute(
                        """
                        var funnel = document.querySelector('#rw-funnel').getBoundingClientRect().width;
                        return JSON.stringify(Array.from(document.querySelectorAll('#rw-funnel .rw-bar')).map(function (b) {
                          return { funnel: funnel, track: b.querySelector('.rw-track').getBoundingClientRect().width,
                                   fill: b.querySelector('.rw-fill').getBoundingClientRect().width,
                                   share: +b.getAttribute('data-reached') / \(try demo.sessions().filter { $0.machine == "kanji" }.count) }; }));
                        """) as? String)
                struct Bar: Decodable {
                    var funnel: Double
                    var track: Double
                    var fill: Double
                    var share: Double
                }
                let bars = try JSONDecoder().decode([Bar].self, from: Data(text.utf8))
                #expect(!bars.isEmpty)
                for bar in bars {
                    #expect(bar.track >= bar.funnel * 0.6, "a track \(bar.track) px wide in a \(bar.funnel) px funnel")
                    #expect(
                        abs(bar.fill - max(2, bar.track * bar.share)) <= 1.5,
                        "fill \(bar.fill) px for \(bar.share) of \(bar.track) px")
                }
                _ = try Screenshots.write(try await driver.screenshot(), named: "machine-phone-light.png")

                try await openPage(driver, session)
                #expect(try await driver.execute("return window.innerWidth;") as? Int == 390)
                let header = try #require(
                    try await driver.execute(
                        """
                        var h1 = document.querySelector('#rw-title'), d = document.querySelector('#rw-download'), t = document.querySelector('#rw-theme');
                        var r = document.createRange(); r.selectNodeContents(d);
                        var lines = Array.from(r.getClientRects()).map(function (q) { return Math.round(q.top); }).filter(function (y, i, a) { return a.indexOf(y) === i; }).length;
                        return JSON.stringify({ titleCut: h1.scrollWidth > h1.clientWidth + 1, titleRight: h1.getBoundingClientRect().right,
                          downloadLines: lines, downloadHeight: d.getBoundingClientRect().height, themeHeight: t.getBoundingClientRect().height,
                          downloadRight: d.getBoundingClientRect().right, width: window.innerWidth });
                        """) as? String)
                struct Header: Decodable {
                    var titleCut: Bool
                    var titleRight: Double
                    var downloadLines: Int
                    var downloadHeight: Double
                    var themeHeight: Double
                    var downloadRight: Double
                    var width: Double
                }
                let shown = try JSONDecoder().decode(Header.self, from: Data(header.utf8))
                #expect(!shown.titleCut, "the title is cut")
                #expect(shown.titleRight <= shown.width)
                #expect(shown.downloadLines == 1, "'Download session' takes \(shown.downloadLines) lines")
                #expect(abs(shown.downloadHeight - shown.themeHeight) <= 1)
                #expect(shown.downloadRight <= shown.width)
                _ = try Screenshots.write(try await driver.screenshot(), named: "session-phone-header.png")
            }
        }

        // 5. Play shows every step for a while, however close the records are.
        @Test func playTakesAMinimumTimePerStep() async throws {
            let demo = try await DemoPages.shared.value
            let (url, info) = try await SessionPageBrowserTests.page(demo, name: "edges-play.html")
            let start = info.headVersion - 3
            try await browsing { driver in
                try await openPage(driver, url, fragment: "v=\(start)")
                try await driver.wait(until: "document.documentElement.getAttribute('data-version') === '\(start)'")
                try await driver.execute(
                    """
                    window.rwSteps = [];
                    new MutationObserver(function () { window.rwSteps.push(performance.now()); })
                      .observe(document.documentElement, { attributes: true, attributeFilter: ['data-version'] });
                    window.rwPlayed = performance.now();
                    """)
                try await driver.click("#rw-play")
                try await driver.wait(
                    until:
                        "document.documentElement.getAttribute('data-version') === '\(info.headVersion)' && document.querySelector('#rw-play').getAttribute('aria-pressed') === 'false'"
                )
                let times = try #require(
                    try await driver.execute("return [window.rwPlayed].concat(window.rwSteps);") as? [Double])
                #expect(times.count == 4, "\(times)")
                for (a, b) in zip(times, times.dropFirst()) {
                    #expect(b - a >= 240, "a step shown for \(b - a) ms")
                }
            }
        }

        // 6. A long session with many idle gaps: labels never overlap, and the timeline has an axis.
        /// A page of a 400-record session, a second between records and every fifth after an idle gap
        /// of 31 minutes to 3 days, written in `fixture`'s directory.
        static func idleSessionPage(in fixture: EngineFixture) async throws -> URL {
            final class Clock: Sendable {
                let now = Mutex<Int64>(1_780_000_000_000_000)
            }
            let clock = Clock()
            let engine = try fixture.open(registering: [try TickerMachine.machine()]) { configuration in
                configuration.clock = { Timestamp(microsecondsSince1970: clock.now.withLock { $0 }) }
            }
            defer { engine.close() }
            let session = try await engine.openSession(id: "idle-user", machine: TickerMachine.name, context: .null)
            for index in 1...400 {
                let step: Int64 = index % 5 == 0 ? Int64(31 + (index * 37) % 4_300) * 60_000_000 : 1_000_000
                clock.now.withLock { $0 += step }
                _ = try await session.send(TickerMachine.tick, payload: ["n": .number(JSONNumber(index))])
            }
            let url = fixture.directory.url.appendingPathComponent("idle.html")
            try SessionPage(engine: engine, session: session.id).html().write(to: url)
            return url
        }

        @Test func idleGapLabelsNeverOverlapAndTheTimelineHasATimeAxis() async throws {
            let fixture = try EngineFixture()
            defer { fixture.remove() }
            let url = try await Self.idleSessionPage(in: fixture)
            for (width, height) in [(1280, 800), (390, 844)] {
                try await browsing(width: width, height: height) { driver in
                    try await openPage(driver, url)
                    let timeline = try await Self.timeline(driver)
                    let gaps = timeline.labels.filter { $0.row == 0 }
                    let axis = timeline.labels.filter { $0.row == 1 }
                    #expect(!gaps.isEmpty, "no idle gap is labelled")
                    #expect(axis.count >= 3, "\(axis.count) axis labels at \(width) px")
                    Self.expectApart(timeline.labels, width: timeline.width)
                    _ = try Screenshots.write(try await driver.screenshot(), named: "idle-gaps-\(width).png")
                }
            }
        }

        /// The timeline zooms with + and −, around the current version, keeps that version in view
        /// as it moves, labels without overlap at every zoom, and 0 shows the whole session again.
        @Test func theTimelineZoomsAroundTheCurrentVersionAndFollowsIt() async throws {
            let fixture = try EngineFixture()
            defer { fixture.remove() }
            let url = try await Self.idleSessionPage(in: fixture)
            try await browsing { driver in
                try await openPage(driver, url, fragment: "v=200")
                let whole = try await Self.timeline(driver)
                #expect(whole.zoom.lo == 0 && whole.zoom.hi == 1)
                let head = whole.last
                #expect(whole.first <= 1 && head >= 400, "the whole session: versions \(whole.first)–\(head)")
                for _ in 0..<3 { try await driver.press("+") }
                try await driver.wait(
                    until:
                        "Math.abs(window.rewindViewer.timeline().zoom.hi - window.rewindViewer.timeline().zoom.lo - 0.125) < 1e-9"
                )
                let zoomed = try await Self.timeline(driver)
                #expect(
                    zoomed.first > 1 && zoomed.last < head,
                    "an eighth of the session: versions \(zoomed.first)–\(zoomed.last)")
                #expect(zoomed.first <= 200 && 200 <= zoomed.last, "the current version is in view")
                Self.expectApart(zoomed.labels, width: zoomed.width)
                // Moving past the view's end moves the view with it.
                try await driver.press(WebDriver.Key.end)
                try await driver.wait(until: "window.rewindViewer.timeline().version === \(head)")
                let followed = try await Self.timeline(driver)
                #expect(followed.last == head && followed.first > zoomed.last, "\(followed.first)–\(followed.last)")
                #expect(abs(followed.zoom.hi - followed.zoom.lo - 0.125) < 1e-9, "the view keeps its width")
                try await driver.press("-")
                try await driver.wait(
                    until:
                        "Math.abs(window.rewindViewer.timeline().zoom.hi - window.rewindViewer.timeline().zoom.lo - 0.25) < 1e-9"
                )
                try await driver.press("0")
                try await driver.wait(
                    until:
                        "window.rewindViewer.timeline().zoom.lo === 0 && window.rewindViewer.timeline().zoom.hi === 1")
                _ = try Screenshots.write(try await driver.screenshot(), named: "timeline-zoom.png")
            }
        }

        /// Labels drawn inside the timeline and apart from each other.
        static func expectApart(_ labels: [Rect], width: Double, sourceLocation: SourceLocation = #_sourceLocation) {
            for (i, a) in labels.enumerated() {
                #expect(
                    a.x >= 0 && a.x + a.w <= width + 0.5, "a label outside the timeline", sourceLocation: sourceLocation
                )
                for b in labels[(i + 1)...] {
                    let apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.bottom <= b.top || b.bottom <= a.top
                    #expect(apart, "labels overlap: \(a) and \(b)", sourceLocation: sourceLocation)
                }
            }
        }

        // 7. Opening a session from the funnel is a history entry; the pinned version is marked.
        @Test func backReturnsToTheFunnelAndThePinIsMarked() async throws {
            let demo = try await DemoPages.shared.value
            let url = try await Self.machinePage(demo)
            let info = try #require(try demo.sessions().first { $0.machine == "kanji" })
            let session = info.session.rawValue
            try await browsing { driver in
                try await openPage(driver, url)
                try await driver.wait(until: "!document.querySelector('#rw-machine-view').hidden")
                try await driver.click("#rw-all a[data-session='\(session)']")
                try await driver.wait(until: "!document.querySelector('#rw-session-view').hidden")
                try await driver.wait(
                    until: "document.documentElement.getAttribute('data-version') === '\(info.headVersion)'")
                // Pin the head, step back twice: the head's row and the timeline show the pin.
                try await driver.press("p")
                try await driver.wait(until: "/^Unpin /.test(document.querySelector('#rw-pin').textContent)")
                try await driver.press(WebDriver.Key.left)
                try await driver.press(WebDriver.Key.left)
                try await driver.wait(
                    until: "document.documentElement.getAttribute('data-version') === '\(info.headVersion - 2)'")
                try await driver.wait(
                    until: "document.querySelector(\"#rw-log li.rw-pinned[data-v='\(info.headVersion)']\") !== null")
                let pinnedRows =
                    try await driver.execute("return document.querySelectorAll('#rw-log li.rw-pinned').length;") as? Int
                #expect(pinnedRows == 1)
                let timeline = try await Self.timeline(driver)
                let pin = try #require(timeline.pin, "the timeline does not mark the pin")
                #expect(pin.version == info.headVersion)
                #expect(
                    pin.x > timeline.width / 2 && pin.x <= timeline.width,
                    "the head's pin at \(pin.x) of \(timeline.width)")
                _ = try Screenshots.write(try await driver.screenshot(), named: "session-pinned.png")
                // Back: the funnel, still in this file.
                try await driver.back()
                try await driver.wait(
                    until:
                        "!document.querySelector('#rw-machine-view').hidden && document.querySelector('#rw-session-view').hidden"
                )
                let path = try await driver.execute("return location.pathname;") as? String
                #expect(path == url.path)
                // Forward again, and the page's own "← Funnel" goes back the same way.
                try await driver.execute("history.forward();")
                try await driver.wait(until: "!document.querySelector('#rw-session-view').hidden")
                try await driver.click("#rw-back")
                try await driver.wait(
                    until: "!document.querySelector('#rw-machine-view').hidden && location.hash === ''")
            }
        }

        // 8. A deep link to a session the file does not hold says so.
        @Test func aDeepLinkToAnUnknownSessionSaysSo() async throws {
            let demo = try await DemoPages.shared.value
            let url = try await Self.machinePage(demo)
            try await browsing { driver in
                try await openPage(driver, url, fragment: "session=nosuch")
                try await driver.wait(until: "!document.querySelector('#rw-machine-view').hidden")
                try await driver.wait(until: "!document.querySelector('#rw-notice').hidden")
                let notice =
                    try await driver.execute("return document.querySelector('#rw-notice').textContent;") as? String
                #expect(notice?.contains("nosuch") == true, "\(notice ?? "")")
                let visible =
                    try await driver.execute(
                        "var r = document.querySelector('#rw-notice').getBoundingClientRect(); return r.height > 0 && r.width > 0;"
                    ) as? Bool
                #expect(visible == true)
                // A session of the file clears the notice.
                let session = try #require(try demo.sessions().first { $0.machine == "kanji" }).session.rawValue
                try await driver.execute("location.hash = 'session=' + encodeURIComponent(arguments[0]);", [session])
                try await driver.wait(until: "!document.querySelector('#rw-session-view').hidden")
                try await driver.click("#rw-back")
                try await driver.wait(
                    until:
                        "!document.querySelector('#rw-machine-view').hidden && document.querySelector('#rw-notice').hidden"
                )
            }
        }

        // 9. Kanji are drawn with glyphs, not empty boxes (CI installs fonts-noto-cjk:
        //    scripts/ensure-chromium.sh). Fails, rather than skips, without a CJK font.
        @Test func kanjiAreDrawnWithACJKFont() async throws {
            let demo = try await DemoPages.shared.value
            let (url, _) = try await SessionPageBrowserTests.page(demo, name: "edges-cjk.html")
            try await browsing { driver in
                try await openPage(driver, url)
                // U+10FFFD is a private-use code point no font has: its width is the missing glyph's.
                let text = try #require(
                    try await driver.execute(
                        """
                        var g = document.createElement('canvas').getContext('2d');
                        var out = {};
                        [['page', document.documentElement], ['diagram', document.querySelector('#rw-diagram svg')]].forEach(function (p) {
                          g.font = '40px ' + getComputedStyle(p[1]).fontFamily;
                          out[p[0]] = { ni: g.measureText('\\u65e5').width, hon: g.measureText('\\u672c').width, missing: g.measureText('\\udbff\\udffd').width };
                        });
                        return JSON.stringify(out);
                        """) as? String)
                struct Widths: Decodable {
                    var ni: Double
                    var hon: Double
                    var missing: Double
                }
                let widths = try JSONDecoder().decode([String: Widths].self, from: Data(text.utf8))
                for (place, w) in widths {
                    #expect(
                        abs(w.ni - w.missing) > 0.5 && abs(w.hon - w.missing) > 0.5,
                        "\(place): 日本 are drawn as missing glyphs (\(w)); install a CJK font (scripts/ensure-chromium.sh installs fonts-noto-cjk)"
                    )
                }
            }
        }
    }
}
