import Testing

@testable import Rewind

/// The Swift Testing file `SessionTestSource` writes: literals that say exactly the recorded
/// text, one test per session under a unique name, the app's modules and machine expression.
struct SessionTestSourceTests {
    @Test func rawLiteralsTakeAsManyHashesAsTheTextNeeds() {
        #expect(SessionTestSource.rawLiteral(#"{"a":1}"#) == ##"#"{"a":1}"#"##)
        #expect(SessionTestSource.rawLiteral(##"{"a":"x"#"}"##) == ###"##"{"a":"x"#"}"##"###)
        #expect(SessionTestSource.rawLiteral(##"{"a":"\#u"}"##) == ###"##"{"a":"\#u"}"##"###)
        // A control character cannot be in a one-line raw literal: a plain one, escaped.
        #expect(SessionTestSource.rawLiteral("\"a\u{7}\"") == #""\"a\u{7}\"""#)
    }

    @Test func stringLiteralsEscapeQuotesBackslashesAndControlCharacters() {
        #expect(SessionTestSource.stringLiteral(#"say "hi"\"#) == #""say \"hi\"\\""#)
        #expect(SessionTestSource.stringLiteral("a\nb\u{1b}[2J") == #""a\nb\u{1b}[2J""#)
        #expect(SessionTestSource.stringLiteral("日本") == "\"日本\"")
    }

    @Test func timesAreGroupedByThousands() {
        #expect(SessionTestSource.grouped(1_767_225_601_500) == "1_767_225_601_500")
        #expect(SessionTestSource.grouped(500) == "500")
        #expect(SessionTestSource.grouped(0) == "0")
        #expect(SessionTestSource.grouped(-12_000) == "-12_000")
    }

    @Test func identifiersAreCamelCaseAndNeverStartWithADigit() {
        #expect(SessionTestSource.identifier("session order-1", upperCamelCase: false) == "sessionOrder1")
        #expect(
            SessionTestSource.identifier("Recorded loading-view Sessions", upperCamelCase: true)
                == "RecordedLoadingViewSessions")
        #expect(SessionTestSource.identifier("42 x", upperCamelCase: true) == "_42X")
        #expect(SessionTestSource.identifier("日本", upperCamelCase: false) == "_")
    }

    @Test func oneTestPerSessionWithUniqueNamesTheImportsAndTheMachineExpression() {
        let step = RecordedSession.Step(
            version: 1, event: "rewind.start", at: 0, payload: "null", configuration: ["cart"], stateData: "{}",
            navigation: #"[{"screen":"cart"}]"#, recordedState: #"{"configuration":["cart"]}"#, redacted: true)
        let sessions = [
            RecordedSession(id: "order-1", machine: "checkout", startedAt: 5, steps: [step]),
            RecordedSession(id: "order_1", machine: "checkout", startedAt: 5, steps: [step]),
        ]
        let text = SessionTestSource(
            sessions: sessions, imports: ["CheckoutApp", "Rewind"], machineExpression: "try CheckoutApp.machine()"
        ).text
        #expect(text.components(separatedBy: "@Test(").count == 3)
        #expect(text.contains("func sessionOrder1() throws {"))
        #expect(text.contains("func sessionOrder1_2() throws {"))
        #expect(text.contains("struct RecordedCheckoutSessions {"))
        #expect(text.contains("import Rewind\nimport CheckoutApp\nimport Testing\n"))
        #expect(text.components(separatedBy: "import Rewind").count == 2)
        #expect(text.contains("        try CheckoutApp.machine()\n"))
        #expect(text.contains(#"@Test("session order-1 (checkout, versions 1–1)")"#))
        #expect(text.contains(##"recordedState: #"{"configuration":["cart"]}"#, redacted: true),"##))
    }
}
