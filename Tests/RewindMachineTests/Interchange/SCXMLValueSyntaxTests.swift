import Testing
@testable import RewindMachine

@Suite("SCXML attribute value syntax")
struct SCXMLValueSyntaxTests {
    @Test func parsesDelays() {
        #expect(SCXMLValueSyntax.milliseconds(fromDelay: "1s") == 1000)
        #expect(SCXMLValueSyntax.milliseconds(fromDelay: " 500ms ") == 500)
        #expect(SCXMLValueSyntax.milliseconds(fromDelay: "1.25s") == 1250)
        #expect(SCXMLValueSyntax.milliseconds(fromDelay: ".5s") == 500)
        #expect(SCXMLValueSyntax.milliseconds(fromDelay: "0ms") == 0)
        #expect(SCXMLValueSyntax.milliseconds(fromDelay: "1.0005s") == nil)
        #expect(SCXMLValueSyntax.milliseconds(fromDelay: "1.5ms") == nil)
        #expect(SCXMLValueSyntax.milliseconds(fromDelay: "-1s") == nil)
        #expect(SCXMLValueSyntax.milliseconds(fromDelay: "1m") == nil)
        #expect(SCXMLValueSyntax.milliseconds(fromDelay: "s") == nil)
        #expect(SCXMLValueSyntax.milliseconds(fromDelay: "99999999999999s") == nil)
    }

    @Test func writesDelaysThatParseBack() {
        for milliseconds in [0, 1, 999, 1000, 1500, 60000, 123_456] {
            let text = SCXMLValueSyntax.delay(milliseconds: milliseconds)
            #expect(SCXMLValueSyntax.milliseconds(fromDelay: text) == milliseconds)
        }
        #expect(SCXMLValueSyntax.delay(milliseconds: 3000) == "3s")
        #expect(SCXMLValueSyntax.delay(milliseconds: 250) == "250ms")
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
