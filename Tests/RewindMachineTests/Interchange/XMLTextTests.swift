import Foundation
@_spi(Internals) import RewindMachine
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("XML text escaping")
struct XMLTextTests {
    @Test func escapesTheFiveMarkupCharacters() {
        #expect(XMLText.escape(#"a & b < c > d "e" 'f'"#) == "a &amp; b &lt; c &gt; d &quot;e&quot; &apos;f&apos;")
        #expect(XMLText.escape("&amp;") == "&amp;amp;")
    }

    @Test func writesWhitespaceControlsAsCharacterReferences() {
        #expect(XMLText.escape("a\tb\nc\rd") == "a&#9;b&#10;c&#13;d")
    }

    @Test func replacesCharactersXMLCannotHold() {
        #expect(XMLText.escape("bell\u{7}nul\u{0}esc\u{1B}") == "bell\u{FFFD}nul\u{FFFD}esc\u{FFFD}")
        #expect(XMLText.escape("\u{FFFE}\u{FFFF}") == "\u{FFFD}\u{FFFD}")
        // DEL and C1 controls are allowed in XML 1.0 and kept.
        #expect(XMLText.escape("\u{7F}\u{85}") == "\u{7F}\u{85}")
    }

    @Test func keepsNonASCIIAndPlainTextUntouched() {
        let text = "ünïcödé.状態 → 🎉 zoë"
        #expect(XMLText.escape(text) == text)
        #expect(XMLText.escape("") == "")
    }

    @Test func escapesAQuoteACombiningMarkJoins() {
        // A quote followed by a combining mark is one Character but two scalars: still escaped.
        #expect(XMLText.escape("\"\u{301}") == "&quot;\u{301}")
    }

    @Test func escapedTextParsesBackToTheOriginal() throws {
        let original = "odd & \"name\" <tag> 'it's'\ttab\nline\rreturn ünï"
        let document =
            "<r a=\"\(XMLText.escape(original))\" b='\(XMLText.escape(original))'>\(XMLText.escape(original))</r>"
        let element = try XMLDocument(xmlString: document).rootElement()
        #expect(element?.attribute(forName: "a")?.stringValue == original)
        #expect(element?.attribute(forName: "b")?.stringValue == original)
        #expect(element?.stringValue == original)
    }
}
