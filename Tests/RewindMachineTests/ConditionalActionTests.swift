import Foundation
import Testing

@testable import RewindMachine

/// `<if>`, `<elseif>` and `<else>` with `In()` conditions: imported as
/// ``ActionDefinition/conditional(_:)``, run in document order against the configuration, and
/// kept through the JSON document and SCXML export.
@Suite("Conditional actions")
struct ConditionalActionTests {
    private static let document = """
        <scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="p">
          <parallel id="p">
            <state id="left" initial="l1">
              <state id="l1"><transition event="move" target="l2"/></state>
              <state id="l2"><transition event="move" target="l3"/></state>
              <state id="l3"/>
            </state>
            <state id="right">
              <state id="r">
                <transition event="check">
                  <log label="checking"/>
                  <if cond="In('l1')">
                    <log label="one"/>
                  <elseif cond="!In('l3')"/>
                    <log label="two"/>
                    <log label="twoAgain"/>
                  <else/>
                    <log label="three"/>
                  </if>
                </transition>
              </state>
            </state>
          </parallel>
        </scxml>
        """

    private static let branches: [ConditionalBranch] = [
        ConditionalBranch(condition: .inState("l1"), actions: [.log(label: "one", message: nil)]),
        ConditionalBranch(
            condition: .not(.inState("l3")),
            actions: [.log(label: "two", message: nil), .log(label: "twoAgain", message: nil)]),
        ConditionalBranch(condition: nil, actions: [.log(label: "three", message: nil)]),
    ]

    private func definition() throws -> MachineDefinition {
        try MachineDefinition(scxml: Data(Self.document.utf8))
    }

    private func transitionActions(_ definition: MachineDefinition) -> [ActionDefinition] {
        definition.states[0].children[1].children[0].transitions[0].actions
    }

    @Test func importsTheBranchesInDocumentOrder() throws {
        #expect(
            transitionActions(try definition()) == [.log(label: "checking", message: nil), .conditional(Self.branches)])
    }

    @Test func runsTheFirstBranchThatHolds() throws {
        let machine = try Machine(definition(), options: Machine.Options(unhandledEvents: .ignore))
        func logs(after moves: Int) throws -> [String] {
            var state = try machine.start().state
            for _ in 0..<moves { state = try machine.send("move", in: state).state }
            return try machine.send("check", in: state).logs
        }
        #expect(try logs(after: 0) == ["checking", "one"])
        #expect(try logs(after: 1) == ["checking", "two", "twoAgain"])
        #expect(try logs(after: 2) == ["checking", "three"])
    }

    @Test func noBranchHoldingRunsNothing() throws {
        let definition = MachineDefinition(
            name: "m",
            states: [
                StateDefinition(
                    id: "a",
                    transitions: [
                        TransitionDefinition(
                            events: ["e"],
                            actions: [
                                .conditional([
                                    ConditionalBranch(condition: .inState("b"), actions: [.raise(event: "x")])
                                ])
                            ]),
                        TransitionDefinition(events: ["x"], targets: ["b"]),
                    ]),
                StateDefinition(id: "b"),
            ])
        let machine = try Machine(definition)
        let step = try machine.send("e", in: machine.start().state)
        #expect(step.state.configuration == ["a"])
    }

    @Test func roundTripsThroughTheJSONDocumentAndSCXMLExport() throws {
        let definition = try definition()
        #expect(try MachineDefinition(jsonDocument: definition.jsonDocument()) == definition)
        let exported = definition.scxml()
        #expect(exported.contains(#"<elseif cond="!In(&apos;l3&apos;)"/>"#))
        #expect(exported.contains("<else/>"))
        #expect(try MachineDefinition(scxml: Data(exported.utf8), name: definition.name) == definition)
    }

    @Test func guardsWithoutAnSCXMLFormAndLeadingElsesRoundTrip() throws {
        let definition = MachineDefinition(
            name: "m",
            states: [
                StateDefinition(
                    id: "a",
                    onEntry: [
                        .conditional([
                            ConditionalBranch(condition: .named("ready"), actions: [.raise(event: "x")]),
                            ConditionalBranch(condition: nil, actions: [.log(label: "a", message: nil)]),
                            ConditionalBranch(condition: .inState("a"), actions: []),
                        ])
                    ])
            ])
        #expect(try MachineDefinition(jsonDocument: definition.jsonDocument()) == definition)
        #expect(try MachineDefinition(scxml: Data(definition.scxml().utf8), name: "m").states[0].onEntry.count == 1)
        let json = String(decoding: definition.jsonDocument(), as: UTF8.self)
        #expect(json.contains(#""if""#))
    }

    @Test func refusesBranchesOutOfOrderAndConditionsThatNeedADataModel() throws {
        func error(_ body: String) -> SCXMLImportError? {
            do {
                _ = try MachineDefinition(
                    scxml: Data(
                        """
                        <scxml xmlns="http://www.w3.org/2005/07/scxml"><state id="a"><onentry>\(body)</onentry></state></scxml>
                        """.utf8))
                return nil
            } catch {
                return error
            }
        }
        #expect(
            error(#"<if cond="In('a')"><else/><elseif cond="In('a')"/></if>"#)?.reason
                == .misplacedElement("elseif", parent: "if"))
        #expect(error(#"<if cond="x &gt; 1"/>"#)?.reason == .unsupportedCondition("x > 1"))
        #expect(error(#"<if/>"#)?.reason == .missingAttribute(element: "if", attribute: "cond"))
        #expect(error(#"<elseif cond="In('a')"/>"#)?.reason == .misplacedElement("elseif", parent: "onentry"))
    }
}
