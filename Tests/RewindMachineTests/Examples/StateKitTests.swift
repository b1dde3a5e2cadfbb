import Foundation
import RewindExamples
import Testing

@testable import RewindMachine

struct StateKitTests {
    @Test func rootEntersLoadingThenAnswersBubbleFromAnyChild() throws {
        let interpreter = Interpreter(machine: try ExampleMachines.StateKit.machine())
        var log: [String] = []
        for id in ExampleMachines.StateKit.State.allCases.map(\.rawValue) {
            interpreter.onDidEnter(id) { _ in log.append("enter \(id)") }
            interpreter.onWillExit(id) { _ in log.append("exit \(id)") }
        }
        try interpreter.start()
        #expect(log == ["enter root", "enter loading"])
        log.removeAll()
        try interpreter.send("apiRespondedError")
        try interpreter.send("userPressedRetryButton")
        try interpreter.send("apiRespondedSuccessfully")
        #expect(
            log == [
                "exit loading", "enter errorView",
                "exit errorView", "enter loading",
                "exit loading", "enter regularView",
            ])
        #expect(interpreter.state.configuration == ["root", "regularView"])
    }

    @Test func retryOnlyExistsOnTheErrorView() throws {
        let machine = try ExampleMachines.StateKit.machine()
        let loading = try machine.start().state
        #expect(throws: MachineError.invalidTransition(from: ["root", "loading"], event: "userPressedRetryButton")) {
            try machine.send("userPressedRetryButton", in: loading)
        }
        let regular = try machine.send("apiRespondedSuccessfully", in: loading).state
        #expect(throws: MachineError.self) { try machine.send("userPressedRetryButton", in: regular) }
        // The root's handlers still apply from the regular view.
        #expect(try machine.send("apiRespondedError", in: regular).target == ["root", "errorView"])
    }

    /// The chart of `MachineDefinition.init(_:initial:content:)`'s doc comment, as written there.
    static let documentedChart = MachineDefinition("statekit") {
        StateNode("root") {
            StateNode("loading")
            StateNode("regularView")
            StateNode("errorView") { On("userPressedRetryButton", to: "loading") }
            On("apiRespondedSuccessfully", to: "regularView", type: .internal)
            On("apiRespondedError", to: "errorView", type: .internal)
        }
    }

    /// Runs `events` through `definition` and returns the enter and exit hooks they ran.
    static func hookOrder(of definition: MachineDefinition, sending events: [String]) throws -> [String] {
        let interpreter = Interpreter(machine: try Machine(definition))
        var log: [String] = []
        for id in ["root", "loading", "regularView", "errorView"] {
            interpreter.onDidEnter(id) { _ in log.append("enter:\(id)") }
            interpreter.onWillExit(id) { _ in log.append("exit:\(id)") }
        }
        try interpreter.start()
        log.removeAll()
        for event in events { try interpreter.send(event) }
        return log
    }

    @Test func theDocumentedChartNeverLeavesTheRoot() throws {
        #expect(
            try Self.hookOrder(of: Self.documentedChart, sending: ["apiRespondedError"])
                == ["exit:loading", "enter:errorView"])
        #expect(
            try Self.hookOrder(
                of: Self.documentedChart,
                sending: ["apiRespondedError", "userPressedRetryButton", "apiRespondedSuccessfully"])
                == [
                    "exit:loading", "enter:errorView", "exit:errorView", "enter:loading", "exit:loading",
                    "enter:regularView",
                ])
    }

    /// Why the documented chart says `type: .internal`: the builder's default is SCXML's external
    /// transition, which leaves its source even for a descendant target.
    @Test func anExternalTransitionToAChildReentersTheParentAsInSCXML() throws {
        let external = MachineDefinition("statekit") {
            StateNode("root") {
                StateNode("loading")
                StateNode("errorView")
                On("apiRespondedError", to: "errorView")
            }
        }
        #expect(
            try Self.hookOrder(of: external, sending: ["apiRespondedError"])
                == ["exit:loading", "exit:root", "enter:root", "enter:errorView"])
    }

    /// Exported to SCXML the internal transitions say `type="internal"`, and the imported chart
    /// (and the JSON document's) runs the same hooks.
    @Test func scxmlAndJSONKeepTheInternalTransitions() throws {
        let scxml = Self.documentedChart.scxml()
        #expect(scxml.contains(#"type="internal""#))
        let imported = try MachineDefinition(scxml: Data(scxml.utf8), name: "statekit")
        let fromJSON = try MachineDefinition(jsonDocument: Self.documentedChart.jsonDocument())
        for definition in [imported, fromJSON] {
            #expect(
                try Self.hookOrder(of: definition, sending: ["apiRespondedError", "userPressedRetryButton"])
                    == ["exit:loading", "enter:errorView", "exit:errorView", "enter:loading"])
        }
        // The example machine is the documented chart (with its typed names and `initial`).
        #expect(
            try Self.hookOrder(of: ExampleMachines.StateKit.definition, sending: ["apiRespondedError"])
                == ["exit:loading", "enter:errorView"])
    }
}
