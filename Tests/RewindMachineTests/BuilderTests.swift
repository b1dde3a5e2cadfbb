import RewindExamples
import Testing

@testable import RewindMachine

struct BuilderTests {
    enum Screen: String { case list, detail }
    enum Action: String { case open, close }

    @Test func builderProducesTheNestedDefinition() {
        let definition = MachineDefinition("m") {
            StateNode("a", initial: "a2", navigation: .push(), validNextStates: ["b"], ignoring: ["noise"]) {
                StateNode("a1")
                StateNode("a2")
                HistoryNode("h", .deep, default: ["a1"])
                OnEntry(.log(label: "in", message: nil))
                OnExit(.raise(event: "left"))
                On(events: ["x", "y"], to: ["b"], guard: .inState("a1"), type: .internal)
                Always(to: ["b"])
            }
            ParallelNode("b") {
                StateNode("r1")
                StateNode("r2")
            }
            FinalNode("c")
        }
        #expect(definition.name == "m")
        #expect(definition.states.map(\.id) == ["a", "b", "c"])
        let a = definition.states[0]
        #expect(a.initial == ["a2"])
        #expect(a.children.map(\.id) == ["a1", "a2", "h"])
        #expect(a.children[2].history == .deep)
        #expect(a.children[2].initialTransition?.targets == ["a1"])
        #expect(a.onEntry == [.log(label: "in", message: nil)])
        #expect(a.onExit == [.raise(event: "left")])
        #expect(
            a.transitions == [
                TransitionDefinition(events: ["x", "y"], targets: ["b"], kind: .internal, condition: .inState("a1")),
                TransitionDefinition(targets: ["b"]),
            ])
        #expect(a.navigation == .push())
        #expect(a.validNextStates == ["b"])
        #expect(a.ignoredEvents == ["noise"])
        #expect(definition.states[1].kind == .parallel)
        #expect(definition.states[2].kind == .final)
    }

    @Test func typedNamesWorkWhereStringsDo() throws {
        let machine = try Machine(
            MachineDefinition("typed") {
                StateNode(Screen.list, validNextStates: [.detail]) { On(Action.open, to: Screen.detail) }
                StateNode(Screen.detail) { On(Action.close, to: Screen.list) }
            })
        let state = try machine.send(Event(Action.open), in: try machine.start().state).state
        #expect(state.isActive(Screen.detail))
        #expect(!state.isActive(Screen.list))
    }

    @Test func conditionalAndLoopedContentIsIncluded() {
        let withExtra = true
        let definition = MachineDefinition("m") {
            for id in ["a", "b"] { StateNode(id) }
            if withExtra { StateNode("extra") } else { StateNode("other") }
        }
        #expect(definition.states.map(\.id) == ["a", "b", "extra"])
    }

    @Test func routesTableAndDictionaryGiveTheSameMachine() throws {
        typealias Onboarding = ExampleMachines.Onboarding
        let fromRoutes = try Machine(Onboarding.definition)
        let fromTable = try Machine(Onboarding.tableDefinition)
        for events in [["launch", "start", "loggedIn"], ["launch", "launch"], ["start"]] {
            var a = try fromRoutes.start().state
            var b = try fromTable.start().state
            for event in events {
                let resultA = Result { try fromRoutes.send(event, in: a) }
                let resultB = Result { try fromTable.send(event, in: b) }
                switch (resultA, resultB) {
                case (.success(let stepA), .success(let stepB)):
                    #expect(stepA.target == stepB.target)
                    #expect(stepA.navigation == stepB.navigation)
                    a = stepA.state
                    b = stepB.state
                case (.failure(let errorA), .failure(let errorB)):
                    #expect("\(errorA)" == "\(errorB)")
                default:
                    Issue.record("the two machines disagree on \(events)")
                }
            }
        }
    }
}
