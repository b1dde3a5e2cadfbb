import RewindExamples
import Testing

@testable import RewindMachine

/// Routes-table and StateKit semantics: unhandled events, bubbling, least common ancestor.
struct TransitionSelectionTests {
    @Test func undefinedEventIsAnInvalidTransitionAndLeavesTheStateUnchanged() throws {
        let machine = try ExampleMachines.Onboarding.machine()
        let state = try machine.start().state
        #expect(throws: MachineError.invalidTransition(from: ["initial"], event: "loggedIn")) {
            try machine.send("loggedIn", in: state)
        }
        #expect(state.configuration == ["initial"])
    }

    @Test func eventsAStateIgnoresAreNotErrors() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a", ignoring: ["tick"]) { On("go", to: "b") }
                StateNode("b")
            })
        let state = try machine.start().state
        let step = try machine.send("tick", in: state)
        #expect(step.state == state)
        #expect(step.microsteps.isEmpty)
        #expect(throws: MachineError.self) { try machine.send("tock", in: state) }
    }

    @Test func ignorePolicyDropsUnhandledEvents() throws {
        let machine = try Machine(
            ExampleMachines.Onboarding.definition, options: Machine.Options(unhandledEvents: .ignore))
        let state = try machine.start().state
        #expect(try machine.send("nonsense", in: state).state == state)
    }

    @Test func unhandledEventBubblesToAncestors() throws {
        let machine = try ExampleMachines.StateKit.machine()
        let state = try run(machine, "apiRespondedError")
        #expect(state.configuration == ["root", "errorView"])
        let step = try machine.send("apiRespondedSuccessfully", in: state)
        #expect(step.state.configuration == ["root", "regularView"])
    }

    @Test func transitionExitsToTheLeastCommonCompoundAncestorAndEntersDown() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("top") {
                    StateNode("left") {
                        StateNode("l1") { StateNode("l1a") }
                        On("cross", to: "r2")
                    }
                    StateNode("right") {
                        StateNode("r1")
                        StateNode("r2", initial: "r2b") {
                            StateNode("r2a")
                            StateNode("r2b")
                        }
                    }
                }
            })
        let state = try machine.start().state
        #expect(state.configuration == ["top", "left", "l1", "l1a"])
        let step = try machine.send("cross", in: state)
        #expect(step.exited == ["l1a", "l1", "left"])
        #expect(step.entered == ["right", "r2", "r2b"])
        #expect(step.source == ["top", "left", "l1", "l1a"])
        #expect(step.target == ["top", "right", "r2", "r2b"])
    }

    @Test func externalSelfTransitionReentersButInternalDoesNot() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("p") {
                    StateNode("c1")
                    StateNode("c2")
                    On("external", to: "c2")
                    On("internal", to: "c2", type: .internal)
                }
            })
        let state = try machine.start().state
        #expect(try machine.send("external", in: state).exited == ["c1", "p"])
        #expect(try machine.send("internal", in: state).exited == ["c1"])
    }

    @Test func guardsSeeThePayloadAndTheContext() throws {
        let bindings = Bindings(guards: [
            "isAdult": { event, _ in (event.payload["age"]?.doubleValue ?? 0) >= 18 },
            "isOpen": { _, context in context["open"] == true },
        ])
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("door") {
                    On("enter", to: "bar", guard: .all([.named("isAdult"), .named("isOpen")]))
                    On("enter", to: "street")
                }
                StateNode("bar")
                StateNode("street")
            }, bindings: bindings)
        let open = try machine.start(context: ["open": true]).state
        #expect(try machine.send("enter", payload: ["age": 20], in: open).target == ["bar"])
        #expect(try machine.send("enter", payload: ["age": 12], in: open).target == ["street"])
        let closed = try machine.start(context: ["open": false]).state
        #expect(try machine.send("enter", payload: ["age": 20], in: closed).target == ["street"])
    }

    @Test func firstTransitionInDocumentOrderWins() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") {
                    On(events: ["go", "move"], to: ["b"])
                    On("go", to: "c")
                }
                StateNode("b")
                StateNode("c")
            })
        let state = try machine.start().state
        #expect(try machine.send("go", in: state).target == ["b"])
        #expect(try machine.send("move", in: state).target == ["b"])
    }

    @Test func finishedMachineRejectsEvents() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") { On("end", to: "done") }
                FinalNode("done")
            })
        let state = try run(machine, "end")
        #expect(state.isFinished)
        #expect(throws: MachineError.machineFinished(configuration: ["done"])) { try machine.send("end", in: state) }
    }

    @Test func sendingBeforeStartIsAnError() throws {
        let machine = try ExampleMachines.Onboarding.machine()
        #expect(throws: MachineError.notStarted) { try machine.send("launch", in: MachineState()) }
    }
}
