import RewindValues
import Testing

/// `DisplayText`: control characters escaped for a terminal, long texts shortened for messages.
struct DisplayTextTests {
    @Test func controlCharactersAreEscapedAndTheRestKept() {
        #expect(DisplayText.escaped("plain 日本 text") == "plain 日本 text")
        #expect(DisplayText.escaped("a\u{1B}[2J\nb\tc\rd") == #"a\e[2J\nb\tc\rd"#)
        #expect(
            DisplayText.escaped("\u{0}\u{7F}\u{80}\u{9B}\u{9F}\u{A0}") == #"\u{0}\u{7F}\u{80}\u{9B}\u{9F}"# + "\u{A0}")
        #expect(DisplayText.escaped("e\u{301}") == "e\u{301}", "a combining mark is no control")
    }

    @Test func theFirstControlCharacterIsNamedWithItsPosition() throws {
        let (scalar, position) = try #require(DisplayText.firstControl(in: "ab\u{1B}c\n"))
        #expect(DisplayText.name(of: scalar) == "U+001B (ESC)" && position == 3)
        #expect(DisplayText.name(of: "\u{85}") == "U+0085")
        #expect(DisplayText.firstControl(in: "kanji-27 日") == nil)
    }

    @Test func aLongTextIsShortenedToItsFirstCharactersAndItsLength() {
        let short = String(repeating: "a", count: DisplayText.excerptLength)
        #expect(DisplayText.excerpt(short) == short)
        let long = String(repeating: "日", count: 100_000)
        #expect(DisplayText.excerpt(long) == String(repeating: "日", count: 60) + "... (100000 characters)")
        #expect(
            DisplayText.excerpt(String(repeating: "\n", count: 61)) == String(repeating: #"\n"#, count: 60)
                + "... (61 characters)")
    }
}
