import RewindExamples
import Testing

@testable import RewindMachine

/// Parallel regions, document order, conflicts, final states and `done.state.<id>`.
struct ParallelTests {
    @Test func parallelRegionsAreEnteredInDocumentOrder() throws {
        let machine = try ExampleMachines.Upload.machine()
        let step = try machine.send("start", in: try machine.start().state)
        #expect(step.entered == ["uploading", "file", "sending", "thumbnail", "rendering"])
        #expect(leaves(machine, step.state) == ["sending", "rendering"])
    }

    @Test func eachRegionTakesItsOwnTransitionForOneEvent() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                ParallelNode("p") {
                    StateNode("r1") {
                        StateNode("a1") { On("t", to: "b1") }
                        StateNode("b1")
                    }
                    StateNode("r2") {
                        StateNode("a2") { On("t", to: "b2") }
                        StateNode("b2")
                    }
                }
            })
        let step = try machine.send("t", in: try machine.start().state)
        #expect(step.microsteps.count == 1)
        #expect(step.microsteps[0].transitions.map(\.source) == ["a1", "a2"])
        #expect(leaves(machine, step.state) == ["b1", "b2"])
    }

    @Test func conflictingTransitionsResolveToTheEarlierInDocumentOrder() throws {
        // Both regions leave the parallel state: the first region's transition pre-empts the second.
        let machine = try Machine(
            MachineDefinition("m") {
                ParallelNode("p") {
                    StateNode("r1") { StateNode("a1") { On("t", to: "x") } }
                    StateNode("r2") { StateNode("a2") { On("t", to: "y") } }
                }
                StateNode("x")
                StateNode("y")
            })
        let step = try machine.send("t", in: try machine.start().state)
        #expect(step.target == ["x"])
        #expect(step.exited == ["a2", "r2", "a1", "r1", "p"])
    }

    @Test func descendantTransitionPreemptsAncestorTransitionInConflict() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                ParallelNode("p") {
                    StateNode("r1") {
                        StateNode("a1") { On("t", to: "b1") }
                        StateNode("b1")
                    }
                    StateNode("r2") { StateNode("a2") }
                    On("t", to: "out")
                }
                StateNode("out")
            })
        let step = try machine.send("t", in: try machine.start().state)
        #expect(leaves(machine, step.state) == ["b1", "a2"])
    }

    @Test func finalStatesInEveryRegionRaiseDoneForTheParallelState() throws {
        let machine = try ExampleMachines.Upload.machine()
        var state = try run(machine, "start", "sent")
        #expect(leaves(machine, state) == ["fileSent", "rendering"])
        let step = try machine.send("rendered", in: state)
        state = step.state
        #expect(state.configuration == ["complete"])
        #expect(step.microsteps.map { $0.event?.name } == ["rendered", "done.state.uploading"])
    }

    @Test func leavingAParallelStateExitsEveryRegion() throws {
        let machine = try ExampleMachines.Upload.machine()
        let step = try machine.send("cancel", in: try run(machine, "start", "sent"))
        // Exit order is reverse document order: later regions first, descendants before ancestors.
        #expect(step.exited == ["rendering", "thumbnail", "fileSent", "file", "uploading"])
        #expect(step.state.configuration == ["idle"])
    }

    @Test func finalChildOfCompoundRaisesDoneState() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("job") {
                    StateNode("working") { On("finish", to: "finished") }
                    FinalNode("finished")
                    On("done.state.job", to: "after")
                }
                StateNode("after")
            })
        #expect(try run(machine, "finish").configuration == ["after"])
    }
}
