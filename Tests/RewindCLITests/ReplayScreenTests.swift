import Testing

@testable import RewindCLI

/// The replay screen fitted to a terminal's size, and the locale's glyphs.
struct ReplayScreenTests {
    private func screen(body: Int, scroll: Int = 0, status: String? = nil, unicode: Bool = true) -> ReplayScreen {
        ReplayScreen(
            header: "rewind replay · kanji-1 (kanji) · version 3 of 17", version: 3, head: 17,
            body: (1...body).map { "line \($0) " + String(repeating: "x", count: 50) }, status: status,
            scroll: scroll, glyphs: Glyphs(unicode: unicode))
    }

    @Test func aSmallTerminalKeepsHeaderTimelineAndHelpAndPagesTheRest() {
        let lines = screen(body: 20).lines(columns: 40, rows: 10)
        #expect(lines.count == 10)
        #expect(lines.allSatisfy { $0.terminalWidth <= 40 }, "\(lines)")
        #expect(lines[0].hasPrefix("rewind replay"))
        #expect(lines[1].hasPrefix("[") && lines[1].hasSuffix("] 3/17"), "\(lines[1])")
        #expect(lines[2].hasPrefix("line 1 "))
        #expect(lines[8].hasPrefix("q quit"))
        #expect(lines[9].hasPrefix("lines 1-6 of 40"), "\(lines[9])")
    }

    @Test func scrollingShowsLaterLinesAndStopsAtTheLast() {
        let page = screen(body: 20, scroll: 6).lines(columns: 40, rows: 10)
        #expect(page[9].hasPrefix("lines 7-12 of 40"), "\(page[9])")
        let past = screen(body: 20, scroll: 1000)
        #expect(past.maximumScroll(columns: 40, rows: 10) == 34)
        #expect(past.lines(columns: 40, rows: 10)[9].hasPrefix("lines 35-40 of 40"))
    }

    @Test func aLargeTerminalShowsEverythingWithoutAPositionLine() {
        let lines = screen(body: 5).lines(columns: 100, rows: 30)
        #expect(lines.count == 2 + 1 + 5 + 1 + 2)
        #expect(lines.last == "")
        #expect(lines[1] == ReplayScreen.timeline(version: 3, head: 17, columns: 100, glyphs: Glyphs(unicode: true)))
    }

    @Test func theStatusLineShowsThePromptInsteadOfThePosition() {
        let lines = screen(body: 20, status: "go to version: 3 ('x' is not a digit)").lines(columns: 40, rows: 10)
        #expect(lines[9] == "go to version: 3 ('x' is not a digit)")
    }

    @Test func timelineFitsTheWidthAndFallsBackToASCII() {
        #expect(ReplayScreen.timeline(version: 5, head: 12, glyphs: Glyphs(unicode: true)) == "[━━━━●───────] 5/12")
        #expect(ReplayScreen.timeline(version: 5, head: 12, glyphs: Glyphs(unicode: false)) == "[====o-------] 5/12")
        let narrow = ReplayScreen.timeline(version: 50, head: 100, columns: 20, glyphs: Glyphs(unicode: true))
        #expect(narrow.terminalWidth == 20, "\(narrow)")
    }

    @Test func wideCharactersTakeTwoCells() {
        #expect("日本".terminalWidth == 4)
        #expect("a日b".truncated(toWidth: 2) == "a")
        #expect("日本語".wrapped(toWidth: 4) == ["日本", "語"])
    }

    @Test func theLocaleDecidesUnicodeByTheFirstSetVariable() {
        #expect(Glyphs.localeIsUTF8(["LANG": "en_US.UTF-8"]))
        #expect(Glyphs.localeIsUTF8(["LANG": "C.utf8"]))
        #expect(!Glyphs.localeIsUTF8(["LANG": "C"]))
        #expect(!Glyphs.localeIsUTF8([:]))
        #expect(!Glyphs.localeIsUTF8(["LC_ALL": "C", "LANG": "en_US.UTF-8"]))
        #expect(Glyphs.localeIsUTF8(["LC_ALL": "", "LC_CTYPE": "de_DE.UTF-8", "LANG": "C"]))
        let ascii = Glyphs(unicode: false)
        #expect(
            [
                ascii.stackSeparator, ascii.dot, ascii.arrow, ascii.barDone, ascii.barMark, ascii.barRest,
                ascii.stepKeys, ascii.scrollKeys, ascii.doubleArrow, ascii.progressDone, ascii.progressRest,
            ]
            .allSatisfy { $0.allSatisfy(\.isASCII) })
    }
}
