import RewindExamples
import Testing

@testable import RewindMachine

/// GKStateMachine's model: valid next states, `enter`, `canEnter`.
struct DirectMoveTests {
    typealias State = ExampleMachines.Map.State

    @Test func enterMovesToAValidNextStateAndIsRecordedAsAnEnterEvent() throws {
        let machine = try ExampleMachines.Map.machine()
        let start = try machine.start().state
        let step = try machine.enter(State.preview.rawValue, in: start)
        #expect(step.event?.name == "enter")
        #expect(step.source == ["start"])
        #expect(step.target == ["preview"])
        #expect(step.exited == ["start"])
        #expect(step.entered == ["preview"])
    }

    @Test func enteringAnInvalidStateThrowsAndChangesNothing() throws {
        let machine = try ExampleMachines.Map.machine()
        let start = try machine.start().state
        #expect(!machine.canEnter("navigation", in: start))
        #expect(throws: MachineError.cannotEnter(from: ["start"], to: "navigation")) {
            try machine.enter("navigation", in: start)
        }
        #expect(start.configuration == ["start"])
    }

    @Test func canEnterFollowsTheDeclaredValidNextStates() throws {
        let machine = try ExampleMachines.Map.machine()
        let preview = try machine.enter("preview", in: try machine.start().state).state
        #expect(machine.validNextStates(in: preview) == ["start", "navigation"])
        #expect(machine.canEnter("start", in: preview))
        #expect(machine.canEnter("navigation", in: preview))
        #expect(!machine.canEnter("preview", in: preview))
        #expect(!machine.canEnter("nowhere", in: preview))
    }

    @Test func enterBeforeStartStartsThereWithNoPreviousState() throws {
        let machine = try ExampleMachines.Kanji.machine()
        let step = try machine.enter("all", in: MachineState())
        #expect(step.event == nil)
        #expect(step.source.isEmpty)
        #expect(step.target == ["all"])
    }

    @Test func enterCarriesDataToTheEnteredState() throws {
        let machine = try ExampleMachines.Kanji.machine()
        let kanji = ExampleMachines.Kanji.Character(character: "日", meanings: ["sun", "day"])
        let state = try machine.start().state
        let step = try machine.enter("detail", data: try JSONValue(encoding: kanji), in: state)
        #expect(try step.state.data(of: "detail", as: ExampleMachines.Kanji.Character.self) == kanji)
        #expect(step.microsteps.first?.data["detail"] == (try JSONValue(encoding: kanji)))
        let back = try machine.enter("all", in: step.state)
        #expect(back.state.data["detail"] == nil)
    }

    @Test func statesWithoutValidNextStatesCannotBeLeftByEnter() throws {
        let machine = try ExampleMachines.Onboarding.machine()
        let state = try machine.start().state
        #expect(!machine.canEnter("home", in: state))
        #expect(throws: MachineError.cannotEnter(from: ["initial"], to: "home")) {
            try machine.enter("home", in: state)
        }
    }
}
