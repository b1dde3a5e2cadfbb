import Foundation
import Testing

@testable import RewindMachine

/// Import errors say in words what is wrong and where: the parser's common errors, documents over
/// its size limit, references to states that do not exist, and documents without a state.
@Suite("SCXML import errors")
struct SCXMLImportErrorTests {
    private func importError(_ xml: String) -> SCXMLImportError? {
        importError(Data(xml.utf8))
    }

    private func importError(_ data: Data) -> SCXMLImportError? {
        do {
            _ = try MachineDefinition(scxml: data)
            return nil
        } catch {
            return error
        }
    }

    private static let open = #"<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0">"#

    @Test func duplicateAttributeIsNamed() throws {
        let error = try #require(importError(Self.open + "\n<state id=\"a\" id=\"b\"/>\n</scxml>"))
        #expect(error.reason == .duplicateAttribute)
        #expect(error.line == 2)
        #expect(error.description.contains("the same attribute twice"))
        #expect(!error.description.contains("parser error"))
    }

    @Test func mismatchedTagNamesTheOpenElement() throws {
        let error = try #require(
            importError(Self.open + "\n<state id=\"a\">\n<state id=\"b\"></final>\n</state></scxml>"))
        #expect(error.reason == .mismatchedTag(expected: "state"))
        #expect(error.line == 3)
        #expect(error.description.contains("does not match the open element <state>"))
    }

    @Test func unclosedElementAndTrailingContentAreNamed() throws {
        let unclosed = try #require(importError(Self.open + "\n<state id=\"a\">"))
        #expect(unclosed.reason == .unclosedElement("state"))
        let trailing = try #require(importError(Self.open + "<state id=\"a\"/></scxml><scxml/>"))
        #expect(trailing.reason == .contentAfterRootElement)
    }

    @Test(arguments: ["", "   \n  ", "<!-- nothing -->"])
    func emptyDocumentIsNamed(text: String) throws {
        let error = try #require(importError(text))
        #expect(error.reason == .emptyDocument)
        #expect(error.description.contains("empty"))
        #expect((error.line ?? 1) >= 1)
    }

    @Test func otherParserErrorsAreInWordsWithOneBasedLines() throws {
        let error = try #require(importError(#"<scxml a="1" b=2/>"#))
        guard case .malformedXML(let code) = error.reason else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(code > 0)
        #expect(error.line == 1)
        #expect(error.column.map { $0 >= 1 } ?? true)
        #expect(!error.description.contains("parser error"))
    }

    @Test func aValidDocumentOverTenMegabytesImports() throws {
        // 10.5 MB: comments between states (the whole document, not one token, is large).
        var xml = Self.open + "\n"
        let filler = "<!-- " + String(repeating: "x", count: 1_000) + " -->\n"
        var count = 0
        while xml.utf8.count < 10_500_000 {
            xml += "<state id=\"s\(count)\"><transition event=\"next\" target=\"s\(count + 1)\"/></state>\n"
            for _ in 0..<20 { xml += filler }
            count += 1
        }
        xml += "<state id=\"s\(count)\"/>\n</scxml>"
        let definition = try MachineDefinition(scxml: Data(xml.utf8))
        #expect(definition.states.count == count + 1)
    }

    @Test func aTokenOverTheParsersLimitIsASizeError() throws {
        let huge = String(repeating: "x", count: SCXMLImportError.parserTokenLimit + 10)
        let error = try #require(importError(Self.open + "<state id=\"\(huge)\"/></scxml>"))
        #expect(error.reason == .sizeLimitExceeded(limit: SCXMLImportError.parserTokenLimit))
        #expect(error.description.contains("size limit of 10000000 bytes"))
    }

    @Test func unknownTargetHasTheTransitionsLineAndColumn() throws {
        let error = try #require(
            importError(
                Self.open + "\n<state id=\"a\">\n  <transition event=\"e\" target=\"nowhere\"/>\n</state>\n</scxml>"))
        #expect(error.reason == .unknownTarget("nowhere"))
        #expect(error.line == 3)
        #expect(error.column == 3)
        #expect(error.description.contains("line 3, column 3: "))
        #expect(error.description.contains("'nowhere'"))
    }

    @Test func anElementsPositionIsTheStartOfItsTagEvenAcrossLinesAndWideCharacters() throws {
        let xml =
            Self.open
            + "\n<state id=\"é\">\n  <!-- ü --> <transition event=\"e\"\n      target=\"nowhere\"/>\n</state>\n</scxml>"
        let error = try #require(importError(xml))
        #expect(error.reason == .unknownTarget("nowhere"))
        #expect(error.line == 3)
        #expect(error.column == 14)
    }

    @Test func initialOutsideItsStateHasTheStatesLine() throws {
        let error = try #require(
            importError(
                Self.open + "\n<state id=\"p\" initial=\"q\">\n<state id=\"c\"/>\n</state>\n<state id=\"q\"/>\n</scxml>"
            ))
        #expect(error.reason == .invalidInitial("q", state: "p"))
        #expect(error.line == 2)
        let root = try #require(
            importError(#"<scxml xmlns="http://www.w3.org/2005/07/scxml" initial="ghost"><state id="a"/></scxml>"#))
        #expect(root.reason == .invalidInitial("ghost", state: nil))
        #expect(root.line == 1)
    }

    @Test func unknownStateInAConditionIsNamedAsSuch() throws {
        let transition = try #require(
            importError(
                Self.open + "\n<state id=\"a\">\n<transition event=\"e\" cond=\"In('ghost')\"/>\n</state></scxml>"))
        #expect(transition.reason == .unknownStateInCondition("ghost"))
        #expect(transition.line == 3)
        #expect(transition.description.contains("In('ghost')"))
        let conditional = try #require(
            importError(
                Self.open
                    + "\n<state id=\"a\"><onentry>\n<if cond=\"In('a')\"/>\n<if cond=\"!In('ghost')\"/>\n</onentry></state></scxml>"
            ))
        #expect(conditional.reason == .unknownStateInCondition("ghost"))
        #expect(conditional.line == 4)
    }

    @Test(arguments: [[0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xE2, 0x82]] as [[UInt8]])
    func invalidUTF8IsRefusedBeforeParsing(sequence: [UInt8]) throws {
        let bytes = Array((Self.open + "<!-- ").utf8) + sequence + Array(" --><state id=\"a\"/></scxml>".utf8)
        #expect(importError(Data(bytes))?.reason == .notUTF8)
    }

    @Test func aDocumentWithoutStatesIsRefused() throws {
        let error = try #require(importError(Self.open + "</scxml>"))
        #expect(error.reason == .noStates)
        #expect(error.description.contains("declares no state"))
    }

    @Test func compilingNamesAnUnknownStateInAConditionAsSuch() throws {
        let definition = MachineDefinition(
            name: "m",
            states: [
                StateDefinition(
                    id: "a", transitions: [TransitionDefinition(events: ["e"], condition: .inState("ghost"))])
            ])
        do {
            _ = try Machine(definition)
            Issue.record("expected an error")
        } catch MachineError.invalidDefinition(let errors) {
            #expect(errors == [ValidationError(state: "a", transition: 0, problem: .unknownStateInCondition("ghost"))])
            #expect(errors.first?.description.contains("In('ghost') names no state") == true)
        }
    }
}
