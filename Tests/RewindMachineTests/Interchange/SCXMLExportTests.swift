import Foundation
import Testing

@testable import RewindMachine

@Suite("SCXML export")
struct SCXMLExportTests {
    private func reimport(_ definition: MachineDefinition) throws -> MachineDefinition {
        try MachineDefinition(scxml: Data(definition.scxml().utf8))
    }

    @Test func roundTripPreservesEveryConformanceCase() throws {
        for url in ConformanceCases.documents() {
            let definition = try MachineDefinition(scxmlFileAt: url)
            #expect(try reimport(definition) == definition, "\(url.lastPathComponent)")
        }
    }

    @Test func roundTripPreservesEveryFieldIncludingRewindExtensions() throws {
        let definition = InterchangeFixtures.everyField
        let exported = definition.scxml()
        #expect(exported.contains(#"xmlns:rewind="https://rewind.dev/scxml""#))
        #expect(try reimport(definition) == definition)
    }

    @Test func writesStandardSCXMLForStandardFeatures() throws {
        let definition = MachineDefinition(
            name: "m",
            initial: ["a"],
            states: [
                StateDefinition(
                    id: "a",
                    transitions: [
                        TransitionDefinition(
                            events: ["go", "stop"], targets: ["b"], condition: .not(.inState("b")),
                            actions: [.raise(event: "x")])
                    ]
                ),
                StateDefinition(
                    id: "b", kind: .final, onEntry: [.send(event: "t", delay: .milliseconds(2000), id: "s")]),
            ]
        )
        let exported = definition.scxml()
        #expect(!exported.contains("rewind"))
        #expect(exported.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        #expect(
            exported.contains(#"<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" name="m" initial="a">"#))
        #expect(exported.contains(#"<transition event="go stop" target="b" cond="!In(&apos;b&apos;)">"#))
        #expect(exported.contains(#"<send event="t" delay="2s" id="s"/>"#))
        #expect(exported.contains(#"<final id="b">"#))
        #expect(try reimport(definition) == definition)
    }

    @Test func writesGuardsSCXMLCannotExpressAsRewindGuards() {
        let definition = MachineDefinition(
            name: "m",
            states: [
                StateDefinition(
                    id: "a", transitions: [TransitionDefinition(condition: .any([.named("x"), .inState("a")]))])
            ]
        )
        #expect(definition.scxml().contains(#"rewind:guard="any(named(&apos;x&apos;), inState(&apos;a&apos;))""#))
    }

    @Test func escapesOddTextAndKeepsIt() throws {
        let odd = #"we"ird<&>'id'"#
        let definition = MachineDefinition(
            name: "odd & \"name\"",
            initial: [odd],
            states: [
                StateDefinition(
                    id: odd,
                    transitions: [TransitionDefinition(events: ["e"], targets: [odd], condition: .inState(odd))],
                    onEntry: [.log(label: "multi\nline\ttab", message: "a < b && c > \"d\"")],
                    navigation: .push(screen: "it's")
                ),
                StateDefinition(
                    id: "ünïcödé.状態", transitions: [TransitionDefinition(condition: .named(#"back\slash'quote"#))]),
            ]
        )
        let exported = definition.scxml()
        #expect(!exported.contains(odd))
        #expect(try reimport(definition) == definition)
    }

    @Test func replacesCharactersXMLCannotHold() throws {
        let definition = MachineDefinition(
            name: "m", states: [StateDefinition(id: "a", onEntry: [.log(label: "bell\u{7}", message: nil)])])
        let reimported = try reimport(definition)
        #expect(reimported.states[0].onEntry == [.log(label: "bell\u{FFFD}", message: nil)])
    }

    @Test func keepsInitialElementsAndHistoryDefaults() throws {
        let definition = MachineDefinition(
            name: "m",
            states: [
                StateDefinition(
                    id: "p",
                    initialTransition: TransitionDefinition(targets: ["p2"], actions: [.raise(event: "i")]),
                    children: [
                        StateDefinition(
                            id: "h", kind: .history, history: .deep,
                            initialTransition: TransitionDefinition(targets: ["p1"])),
                        StateDefinition(id: "p1"),
                        StateDefinition(id: "p2"),
                    ]
                )
            ]
        )
        let exported = definition.scxml()
        #expect(exported.contains("<initial>"))
        #expect(exported.contains(#"<history id="h" type="deep">"#))
        #expect(try reimport(definition) == definition)
    }
}
