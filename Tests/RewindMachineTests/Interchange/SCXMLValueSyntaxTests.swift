import Testing

@testable import RewindMachine

@Suite("SCXML attribute value syntax")
struct SCXMLValueSyntaxTests {
    @Test func parsesDelays() {
        #expect(SCXMLValueSyntax.delay(fromText: "1s") == .milliseconds(1000))
        #expect(SCXMLValueSyntax.delay(fromText: " 500ms ") == .milliseconds(500))
        #expect(SCXMLValueSyntax.delay(fromText: "1.25s") == .milliseconds(1250))
        #expect(SCXMLValueSyntax.delay(fromText: ".5s") == .milliseconds(500))
        #expect(SCXMLValueSyntax.delay(fromText: "0ms") == .milliseconds(0))
        #expect(SCXMLValueSyntax.delay(fromText: "1.0005s") == nil)
        #expect(SCXMLValueSyntax.delay(fromText: "1.5ms") == nil)
        #expect(SCXMLValueSyntax.delay(fromText: "-1s") == nil)
        #expect(SCXMLValueSyntax.delay(fromText: "1m") == nil)
        #expect(SCXMLValueSyntax.delay(fromText: "s") == nil)
        #expect(SCXMLValueSyntax.delay(fromText: "99999999999999s") == nil)
    }

    @Test func writesDelaysThatParseBack() throws {
        for milliseconds in [1, 999, 1000, 1500, 60000, 123_456] {
            let text = try #require(SCXMLValueSyntax.text(ofDelay: .milliseconds(milliseconds)))
            #expect(SCXMLValueSyntax.delay(fromText: text) == .milliseconds(milliseconds))
        }
        #expect(SCXMLValueSyntax.text(ofDelay: .seconds(3)) == "3s")
        #expect(SCXMLValueSyntax.text(ofDelay: .milliseconds(250)) == "250ms")
        // No delay writes no attribute; the part finer than a millisecond is dropped.
        #expect(SCXMLValueSyntax.text(ofDelay: .zero) == nil)
        #expect(SCXMLValueSyntax.text(ofDelay: .microseconds(999)) == nil)
        #expect(SCXMLValueSyntax.text(ofDelay: .microseconds(1_500_999)) == "1500ms")
    }

    @Test func normalisesEventDescriptors() {
        #expect(SCXMLValueSyntax.normalizedEventDescriptor("foo.*") == "foo")
        #expect(SCXMLValueSyntax.normalizedEventDescriptor("foo.bar.") == "foo.bar")
        #expect(SCXMLValueSyntax.normalizedEventDescriptor("*") == "*")
        #expect(SCXMLValueSyntax.normalizedEventDescriptor("foo") == "foo")
        #expect(SCXMLValueSyntax.normalizedEventDescriptor("foo*") == nil)
        #expect(SCXMLValueSyntax.normalizedEventDescriptor(".*") == nil)
    }

    @Test func splitsListsOnAnyWhitespace() {
        #expect(SCXMLValueSyntax.list(" a\tb\n c  ") == ["a", "b", "c"])
        #expect(SCXMLValueSyntax.list("") == [])
    }

    @Test func mapsNavigationAttributesBothWays() {
        let declarations: [NavigationDeclaration] = [
            .push(screen: nil), .push(screen: "s"), .replace(screen: nil), .replace(screen: "s"), .setRoot(screen: nil),
            .setRoot(screen: "s"), .pop, .popToRoot, .popTo(screen: "s"),
        ]
        for declaration in declarations {
            let (keyword, screen) = SCXMLValueSyntax.navigationAttributes(declaration)
            #expect(SCXMLValueSyntax.navigation(keyword: keyword, screen: screen) == declaration)
        }
        #expect(SCXMLValueSyntax.navigation(keyword: "pop", screen: "s") == nil)
        #expect(SCXMLValueSyntax.navigation(keyword: "popTo", screen: nil) == nil)
        #expect(SCXMLValueSyntax.navigation(keyword: "jump", screen: nil) == nil)
    }
}
