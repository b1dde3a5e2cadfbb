import RewindExamples
import Testing

@testable import RewindMachine

/// Flat machines take precomputed steps; they must equal what the general algorithm computes.
struct FlatTransitionTests {
    private func general(_ machine: Machine, _ event: Event, _ state: MachineState) -> Result<Step, MachineError> {
        Result { try machine.send(event, in: state, now: .zero, rejectUnhandled: true, allowPrecomputed: false) }
            .mapError { $0 as? MachineError ?? .notStarted }
    }

    private func flat(_ machine: Machine, _ event: Event, _ state: MachineState) -> Result<Step, MachineError> {
        Result { try machine.send(event, in: state) }.mapError { $0 as? MachineError ?? .notStarted }
    }

    @Test func flatMachinesAreRecognised() throws {
        #expect(try ExampleMachines.Onboarding.machine().chart.isFlat)
        #expect(try ExampleMachines.LoadingView.machine().chart.isFlat)
        #expect(try !ExampleMachines.StateKit.machine().chart.isFlat)
    }

    @Test func precomputedStepsEqualTheGeneralAlgorithm() throws {
        let machine = try Machine(
            MachineDefinition("flat") {
                StateNode("a", navigation: .setRoot(), ignoring: ["noise"]) {
                    On(events: ["go", "move"], to: ["b"])
                    On("stay")
                    On("self", to: "a")
                    On("guarded", to: "c", guard: .named("allowed"))
                    On("guarded", to: "b")
                }
                StateNode("b", navigation: .push()) {
                    On("back", to: "a", navigation: .pop)
                    On("any.*", to: "c")
                    On("*", to: "a")
                }
                StateNode("c", navigation: .replace(screen: "C"))
            }, bindings: Bindings(guards: ["allowed": { _, context in context["allow"] == true }]))
        let events = ["go", "move", "stay", "self", "guarded", "back", "any", "any.thing", "other", "noise"]
        for context: JSONValue in [["allow": true], ["allow": false]] {
            let start = try machine.start(context: context).state
            var states = [start]
            for id in ["b", "c"] {
                var state = start
                state.configuration = [id]
                states.append(state)
            }
            for state in states {
                for name in events {
                    for payload: JSONValue in [.null, ["x": 1]] {
                        let event = Event(name, payload: payload)
                        #expect(
                            flat(machine, event, state) == general(machine, event, state),
                            "\(name) in \(state.configuration)")
                    }
                }
            }
        }
    }

    @Test func dataOfTheExitedStateIsDroppedOnTheFlatPathToo() throws {
        let machine = try ExampleMachines.LoadingView.machine()
        let ready = try machine.send("loaded", payload: ["title": "T", "items": []], in: try machine.start().state)
            .state
        #expect(ready.data["ready"] != nil)
        let step = try machine.send("reload", in: ready)
        #expect(step.state.data.isEmpty)
        #expect(
            step
                == (try machine.send(
                    Event("reload"), in: ready, now: .zero, rejectUnhandled: true, allowPrecomputed: false)))
    }
}
