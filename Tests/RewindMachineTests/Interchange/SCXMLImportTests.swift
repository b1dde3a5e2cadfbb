import Foundation
import RewindBaseTestSupport
import Testing

@testable import RewindMachine

@Suite("SCXML import")
struct SCXMLImportTests {
    private func load(_ xml: String, name: String? = nil) throws -> MachineDefinition {
        try MachineDefinition(scxml: Data(xml.utf8), name: name)
    }

    private func importError(_ xml: String) -> SCXMLImportError? {
        do {
            _ = try MachineDefinition(scxml: Data(xml.utf8))
            return nil
        } catch {
            return error
        }
    }

    private func wrap(_ body: String) -> String {
        """
        <scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0">
        \(body)
        </scxml>
        """
    }

    @Test func importsEveryConformanceCase() throws {
        let documents = ConformanceCases.documents()
        guard ConformanceCases.folder() != nil else { return }
        #expect(documents.count == 83)
        for url in documents {
            let definition = try MachineDefinition(scxmlFileAt: url)
            #expect(!definition.states.isEmpty, "\(url.lastPathComponent) has no states")
            #expect(definition.name == url.deletingPathExtension().lastPathComponent)
            var ids: [String] = []
            func collect(_ states: [StateDefinition]) {
                for state in states {
                    ids.append(state.id)
                    collect(state.children)
                }
            }
            collect(definition.states)
            #expect(Set(ids).count == ids.count, "\(url.lastPathComponent) has duplicate ids")
        }
    }

    @Test func importsStatesTransitionsAndExecutableContent() throws {
        let definition = try load(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment -->
            <scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript"
                   initial="a" name="sample">
              <state id="a" initial="a1">
                <onentry><raise event="entered"/><log label="hello" expr="'world'"/></onentry>
                <onexit><cancel sendid="timer"/></onexit>
                <state id="a1">
                  <transition event="go foo.* bar." target="b" cond="In('p1')"/>
                  <transition event="*" target="a2" type="internal" cond='!In("a2")'>
                    <send event="tick" delay="1.5s" id="timer"/>
                    <send event="now" target="#_internal"/>
                  </transition>
                </state>
                <state id="a2"/>
              </state>
              <parallel id="b">
                <history id="h" type="deep"><transition target="p1"/></history>
                <state id="p1"><initial><transition target="p1x"><raise event="init"/></transition></initial>
                  <state id="p1x"/>
                </state>
                <state id="p2"/>
              </parallel>
              <final id="done"/>
            </scxml>
            """
        )
        #expect(definition.name == "sample")
        #expect(definition.initial == ["a"])
        #expect(definition.states.map(\.id) == ["a", "b", "done"])
        #expect(definition.states.map(\.kind) == [.state, .parallel, .final])

        let a = definition.states[0]
        #expect(a.initial == ["a1"])
        #expect(a.onEntry == [.raise(event: "entered"), .log(label: "hello", message: "'world'")])
        #expect(a.onExit == [.cancel(sendID: "timer")])
        let a1 = a.children[0]
        #expect(
            a1.transitions[0]
                == TransitionDefinition(events: ["go", "foo", "bar"], targets: ["b"], condition: .inState("p1")))
        #expect(
            a1.transitions[1]
                == TransitionDefinition(
                    events: ["*"],
                    targets: ["a2"],
                    kind: .internal,
                    condition: .not(.inState("a2")),
                    actions: [.send(event: "tick", delay: .milliseconds(1500), id: "timer"), .raise(event: "now")]
                )
        )

        let b = definition.states[1]
        #expect(b.children.map(\.id) == ["h", "p1", "p2"])
        #expect(b.children[0].kind == .history)
        #expect(b.children[0].history == .deep)
        #expect(b.children[0].initialTransition == TransitionDefinition(targets: ["p1"]))
        #expect(
            b.children[1].initialTransition == TransitionDefinition(targets: ["p1x"], actions: [.raise(event: "init")]))
    }

    @Test func historyWithoutTypeIsShallow() throws {
        let definition = try load(wrap(#"<state id="s"><history id="h"/><state id="x"/></state>"#))
        #expect(definition.states[0].children[0].history == .shallow)
    }

    @Test func readsRewindExtensions() throws {
        let definition = try load(
            """
            <scxml xmlns="http://www.w3.org/2005/07/scxml" xmlns:rw="https://rewind.dev/scxml">
              <state id="home" rw:navigation="setRoot" rw:validNextStates="detail settings" rw:ignoredEvents="ping noise.*">
                <transition event="open" target="detail" rw:guard="all(named('signedIn'), not(inState('x')))"
                            rw:navigation="push" rw:screen="detailScreen">
                  <rw:action name="track"/>
                </transition>
              </state>
              <state id="detail" rw:navigation="popTo" rw:screen="home" rw:validNextStates=""/>
              <state id="x"/>
            </scxml>
            """
        )
        let home = definition.states[0]
        #expect(home.navigation == .setRoot(screen: nil))
        #expect(home.validNextStates == ["detail", "settings"])
        #expect(home.ignoredEvents == ["ping", "noise.*"])
        #expect(
            home.transitions[0]
                == TransitionDefinition(
                    events: ["open"],
                    targets: ["detail"],
                    condition: .all([.named("signedIn"), .not(.inState("x"))]),
                    actions: [.custom("track")],
                    navigation: .push(screen: "detailScreen")
                )
        )
        #expect(definition.states[1].navigation == .popTo(screen: "home"))
        #expect(definition.states[1].validNextStates == [])
        #expect(definition.states[2].validNextStates == nil)
    }

    @Test func generatesDeterministicIDsThatAvoidDeclaredOnes() throws {
        let xml = wrap(
            """
            <state><state/><state id="_state_1.1"/><final/></state>
            <parallel><state/></parallel>
            """
        )
        let first = try load(xml)
        let second = try load(xml)
        #expect(first == second)
        #expect(first.states.map(\.id) == ["_state_1", "_parallel_2"])
        #expect(first.states[0].children.map(\.id) == ["__state_1.1", "_state_1.1", "_final_1.3"])
        #expect(first.states[1].children.map(\.id) == ["_state_2.1"])
    }

    @Test func nameArgumentWinsOverTheDocumentsName() throws {
        let xml = #"<scxml xmlns="http://www.w3.org/2005/07/scxml" name="inside"><state id="a"/></scxml>"#
        #expect(try load(xml).name == "inside")
        #expect(try load(xml, name: "given").name == "given")
        #expect(try load(wrap(#"<state id="a"/>"#)).name == MachineDefinition.defaultImportedName)
    }

    @Test func ignoresElementsAndAttributesOfOtherNamespaces() throws {
        let definition = try load(
            """
            <scxml xmlns="http://www.w3.org/2005/07/scxml" xmlns:qt="http://www.qt.io/2015/02/scxml-ext">
              <qt:editorinfo initialGeometry="1;2"><anything/></qt:editorinfo>
              <state id="a" qt:color="red"/>
            </scxml>
            """
        )
        #expect(definition.states == [StateDefinition(id: "a")])
    }

    @Test(arguments: [
        ("<datamodel><data id=\"x\"/></datamodel>", "datamodel"),
        ("<script>x = 1</script>", "script"),
        ("<state id=\"a\"><onentry><assign location=\"x\" expr=\"1\"/></onentry></state>", "assign"),
        ("<state id=\"a\"><invoke src=\"x\"/></state>", "invoke"),
        ("<state id=\"a\"><onentry><foreach array=\"a\" item=\"i\"/></onentry></state>", "foreach"),
        ("<state id=\"a\"><onentry><send event=\"e\"><param name=\"p\" expr=\"1\"/></send></onentry></state>", "param"),
        ("<state id=\"a\"><onentry><send event=\"e\"><content>x</content></send></onentry></state>", "content"),
        ("<final id=\"f\"><donedata/></final>", "donedata"),
    ])
    func rejectsElementsThatNeedADataModel(body: String, element: String) throws {
        let error = try #require(importError(wrap(body)))
        #expect(error.reason == .unsupportedElement(element))
        #expect(error.line != nil)
        #expect(error.description.contains("<\(element)>"))
    }

    @Test func rejectsExpressionAttributesOfSend() throws {
        let error = try #require(
            importError(wrap(#"<state id="a"><onentry><send eventexpr="'e'"/></onentry></state>"#)))
        #expect(error.reason == .unsupportedAttribute(element: "send", attribute: "eventexpr"))
    }

    @Test(arguments: ["x > 1", "In('a') && In('b')", "In(a)", "!!In('a')", "In('a'", "true"])
    func rejectsConditionsOtherThanIn(condition: String) throws {
        let escaped = condition.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: ">", with: "&gt;")
        let error = try #require(
            importError(wrap(#"<state id="a"><transition event="e" cond="\#(escaped)"/></state>"#)))
        #expect(error.reason == .unsupportedCondition(condition))
    }

    @Test func reportsTheLineOfAnUnknownElement() throws {
        let error = try #require(
            importError(
                "<scxml xmlns=\"http://www.w3.org/2005/07/scxml\">\n<state id=\"a\">\n<bogus/>\n</state>\n</scxml>"))
        #expect(error.reason == .unknownElement("bogus"))
        #expect(error.line == 3)
        #expect(error.description.contains("line 3"))
    }

    @Test func rejectsMisplacedElements() throws {
        let error = try #require(importError(wrap(#"<final id="f"><state id="s"/></final>"#)))
        #expect(error.reason == .misplacedElement("state", parent: "final"))
    }

    @Test func rejectsUnknownAttributes() throws {
        let error = try #require(importError(wrap(#"<state id="a" colour="red"/>"#)))
        #expect(error.reason == .unsupportedAttribute(element: "state", attribute: "colour"))
    }

    @Test func rejectsDuplicateIDs() throws {
        let error = try #require(importError(wrap("<state id=\"a\"/>\n<state id=\"b\"><state id=\"a\"/></state>")))
        #expect(error.reason == .duplicateStateID("a"))
        #expect(error.line == 3)
    }

    @Test(arguments: ["", "a b"])
    func rejectsIDsThatCannotBeTargeted(id: String) throws {
        let error = try #require(importError(wrap(#"<state id="\#(id)"/>"#)))
        guard case .invalidAttributeValue("state", "id", id, _) = error.reason else {
            Issue.record("unexpected \(error)")
            return
        }
    }

    @Test func rejectsBadValues() throws {
        let history = try #require(importError(wrap(#"<state id="s"><history id="h" type="medium"/></state>"#)))
        #expect(
            history.reason
                == .invalidAttributeValue(
                    element: "history", attribute: "type", value: "medium", expected: "'shallow' or 'deep'"))
        let delay = try #require(
            importError(wrap(#"<state id="s"><onentry><send event="e" delay="soon"/></onentry></state>"#)))
        guard case .invalidAttributeValue(_, "delay", "soon", _) = delay.reason else {
            Issue.record("unexpected \(delay)")
            return
        }
        let descriptor = try #require(importError(wrap(#"<state id="s"><transition event="a.*.b"/></state>"#)))
        guard case .invalidAttributeValue(_, "event", _, _) = descriptor.reason else {
            Issue.record("unexpected \(descriptor)")
            return
        }
        let navigation = try #require(
            importError(wrap(#"<state xmlns:r="https://rewind.dev/scxml" id="s" r:navigation="popTo"/>"#)))
        guard case .invalidAttributeValue(_, "rewind:navigation", "popTo", _) = navigation.reason else {
            Issue.record("unexpected \(navigation)")
            return
        }
    }

    @Test func rejectsMalformedXMLWithItsLine() throws {
        let error = try #require(
            importError("<scxml xmlns=\"http://www.w3.org/2005/07/scxml\">\n<state id=\"a\">\n</scxml>"))
        #expect(error.reason == .mismatchedTag(expected: "state"))
        #expect(error.line == 3)
    }

    @Test func rejectsDocumentsThatAreNotSCXML() throws {
        let error = try #require(importError("<html><body/></html>"))
        #expect(error.reason == .notSCXML(rootElement: "html"))
    }

    @Test func rejectsTextInsideStates() throws {
        let error = try #require(importError(wrap(#"<state id="a">hello</state>"#)))
        #expect(error.reason == .unexpectedText(element: "state"))
    }

    @Test func rejectsDocumentTypeDeclarations() throws {
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE scxml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <scxml xmlns="http://www.w3.org/2005/07/scxml"><state id="&b;"/></scxml>
            """
        let error = try #require(importError(xml))
        #expect(error.reason == .documentTypeDeclaration)
        #expect(error.line == 2)
    }

    @Test func rejectsBytesThatAreNotUTF8() throws {
        var bytes = Array("<scxml xmlns=\"http://www.w3.org/2005/07/scxml\"><!-- x --><state id=\"a\"/></scxml>".utf8)
        let index = try #require(bytes.firstIndex(of: UInt8(ascii: "x")))
        bytes[index] = 0xFF
        #expect(throws: SCXMLImportError(.notUTF8)) { try MachineDefinition(scxml: Data(bytes)) }
    }

    @Test func boundsTheNestingDepth() throws {
        let depth = SCXMLImportError.maximumNestingDepth + 10
        let xml =
            "<scxml xmlns=\"http://www.w3.org/2005/07/scxml\">"
            + String(repeating: "<state>", count: depth) + String(repeating: "</state>", count: depth) + "</scxml>"
        let error = try #require(importError(xml))
        #expect(error.reason == .nestingTooDeep(limit: SCXMLImportError.maximumNestingDepth))
    }

    @Test func neverCrashesOnTruncatedOrCorruptedDocuments() throws {
        guard let url = ConformanceCases.documents().first(where: { $0.lastPathComponent == "history4.scxml" }) else {
            return
        }
        let bytes = [UInt8](try Data(contentsOf: url))
        var accepted = 0
        for length in stride(from: 0, to: bytes.count, by: 7) {
            if (try? MachineDefinition(scxml: Data(bytes[..<length]))) != nil { accepted += 1 }
        }
        var generator = SeededRandom(seed: 42)
        for _ in 0..<300 {
            var corrupted = bytes
            for _ in 0..<3 {
                let index = Int(generator.next() % UInt64(corrupted.count))
                corrupted[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            if (try? MachineDefinition(scxml: Data(corrupted))) != nil { accepted += 1 }
        }
        // A truncated document is never complete, so it must never be accepted.
        #expect(accepted < 300)
        #expect((try? MachineDefinition(scxml: Data(bytes[..<(bytes.count / 2)]))) == nil)
    }

    @Test func mutatedDocumentsEitherFailWithAnErrorOrRoundTrip() throws {
        let documents = ConformanceCases.documents()
        guard !documents.isEmpty else { return }
        let fragments = [
            "<!--", "-->", "<![CDATA[", "]]>", "&#0;", "&#x1F600;", "<?pi x?>", "&amp;", "&bogus;", "<", ">", "\"",
            "'", "\u{0}", "é", "<state>", "</state>", "xmlns:a='b'", "a:b='c'", "<a:x/>", "<rewind:action/>",
            "cond=\"In('", "\n", "<!DOCTYPE", "<send event='e' delay='9999999999s'/>",
        ]
        var generator = SeededRandom(seed: 7)
        var accepted = 0
        for iteration in 0..<600 {
            var bytes = [UInt8](try Data(contentsOf: documents[iteration % documents.count]))
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let index = Int(generator.next() % UInt64(bytes.count + 1))
                switch generator.next() % 3 {
                case 0:
                    bytes.insert(
                        contentsOf: Array(fragments[Int(generator.next() % UInt64(fragments.count))].utf8), at: index)
                case 1: if index < bytes.count { bytes.remove(at: index) }
                default: if index < bytes.count { bytes[index] = UInt8(truncatingIfNeeded: generator.next()) }
                }
            }
            guard let definition = try? MachineDefinition(scxml: Data(bytes)) else { continue }
            accepted += 1
            #expect(try MachineDefinition(scxml: Data(definition.scxml().utf8)) == definition)
            #expect(try MachineDefinition(jsonDocument: definition.jsonDocument()) == definition)
        }
        #expect(accepted > 0)  // some mutations (in comments, say) leave a valid document
    }
}
