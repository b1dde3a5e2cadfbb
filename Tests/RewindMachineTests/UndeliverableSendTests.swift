import Foundation
import Testing

@testable import RewindMachine

/// A `<send>` to a target or of a type Rewind cannot deliver imports with a warning and, when it
/// runs, raises `error.communication` or `error.execution` on the internal queue (W3C SCXML
/// §6.2.4) instead of refusing the document.
@Suite("Undeliverable sends")
struct UndeliverableSendTests {
    private func machine(send: String) throws -> Machine {
        let definition = try MachineDefinition(
            scxml: Data(
                """
                <scxml xmlns="http://www.w3.org/2005/07/scxml" initial="a">
                  <state id="a"><transition event="go" target="b">\(send)</transition></state>
                  <state id="b">
                    <transition event="error.communication" target="communication"/>
                    <transition event="error.execution" target="execution"/>
                    <transition event="hello" target="delivered"/>
                  </state>
                  <state id="communication"/><state id="execution"/><state id="delivered"/>
                </scxml>
                """.utf8))
        return try Machine(definition, options: Machine.Options(unhandledEvents: .ignore))
    }

    @Test(arguments: [
        (##"<send event="hello" target="#_parent"/>"##, "communication"),
        (##"<send event="hello" target="#_scxml_other"/>"##, "communication"),
        (##"<send event="hello" target="http://example.com/x" delay="1s" id="s"/>"##, "execution"),
        (##"<send event="hello" type="http://www.w3.org/TR/scxml/#BasicHTTPEventProcessor"/>"##, "execution"),
    ])
    func raisesTheErrorEventWhenItRuns(send: String, outcome: String) throws {
        let machine = try machine(send: send)
        let step = try machine.send("go", in: machine.start().state)
        #expect(step.state.configuration == [outcome])
        #expect(step.state.pendingSends.isEmpty)
    }

    @Test func importsWithAWarningNamingTheSend() throws {
        let machine = try machine(send: ##"<send event="hello" target="#_parent"/>"##)
        #expect(
            machine.definition.states[0].transitions[0].actions == [
                .undeliverableSend(event: "hello", target: "#_parent", type: nil)
            ])
        let warning = try #require(
            machine.warnings.first { if case .undeliverableSend = $0.problem { true } else { false } })
        #expect(
            warning.problem
                == .undeliverableSend(event: "hello", target: "#_parent", type: nil, raises: "error.communication"))
        #expect(warning.description.contains("cannot be delivered"))
        #expect(warning.description.contains("error.communication"))
    }

    @Test func aSupportedSendStillSends() throws {
        let machine = try machine(send: ##"<send event="hello" type="scxml"/>"##)
        #expect(machine.warnings.isEmpty)
        let step = try machine.send("go", in: machine.start().state)
        #expect(step.state.pendingSends.map(\.event.name) == ["hello"])
    }

    @Test func roundTripsThroughTheJSONDocumentAndSCXMLExport() throws {
        let definition = try machine(send: ##"<send event="hello" target="#_parent" type="scxml" delay="2s" id="t"/>"##)
            .definition
        #expect(
            definition.states[0].transitions[0].actions == [
                .undeliverableSend(
                    event: "hello", target: "#_parent", type: "scxml", delay: .milliseconds(2000), id: "t")
            ])
        #expect(try MachineDefinition(jsonDocument: definition.jsonDocument()) == definition)
        #expect(try MachineDefinition(scxml: Data(definition.scxml().utf8), name: definition.name) == definition)
    }
}
