import Foundation
import Testing

@testable import RewindMachine

struct ValidationTests {
    private func problems(_ definition: MachineDefinition, bindings: Bindings = Bindings()) -> [ValidationError] {
        do {
            _ = try Machine(definition, bindings: bindings)
            return []
        } catch MachineError.invalidDefinition(let errors) {
            return errors
        } catch {
            return []
        }
    }

    @Test func unknownTargetIsNamedWithItsStateAndTransition() {
        let errors = problems(
            MachineDefinition("m") {
                StateNode("a") {
                    On("go", to: "b")
                    On("x", to: "nowhere")
                }
                StateNode("b")
            })
        #expect(errors == [ValidationError(state: "a", transition: 1, problem: .unknownTarget("nowhere"))])
        #expect(errors.first?.description.contains("nowhere") == true)
    }

    @Test func duplicateIDsAreRejected() {
        let errors = problems(
            MachineDefinition("m") {
                StateNode("a") { StateNode("b") }
                StateNode("b")
            })
        #expect(errors.contains(ValidationError(state: "b", problem: .duplicateID)))
    }

    @Test func compoundStateNeedsAResolvableInitialChild() {
        let errors = problems(
            MachineDefinition("m") {
                StateNode("a", initial: "c") { StateNode("b") }
                StateNode("c")
            })
        #expect(errors == [ValidationError(state: "a", problem: .unresolvableInitial(["c"]))])
    }

    @Test func historyAtTopLevelIsRejected() {
        let errors = problems(
            MachineDefinition("m") {
                StateNode("a")
                HistoryNode("h")
            })
        #expect(errors == [ValidationError(state: "h", problem: .historyOutsideCompoundState)])
    }

    @Test func transitionFromFinalStateIsRejected() {
        var final = StateDefinition(id: "end", kind: .final)
        final.transitions = [TransitionDefinition(events: ["x"], targets: ["a"])]
        let errors = problems(MachineDefinition(name: "m", states: [StateDefinition(id: "a"), final]))
        #expect(errors == [ValidationError(state: "end", problem: .transitionFromFinalState)])
    }

    @Test func unboundGuardsAndActionsAreRejected() {
        let definition = MachineDefinition("m") {
            StateNode("a") {
                On("go", to: "b", guard: .named("isReady"), actions: [.custom("track")])
            }
            StateNode("b")
        }
        let errors = problems(definition)
        #expect(errors.contains(ValidationError(state: "a", transition: 0, problem: .unboundGuard("isReady"))))
        #expect(errors.contains(ValidationError(state: "a", problem: .unboundAction("track"))))
        let bound = Bindings(guards: ["isReady": { _, _ in true }], actions: ["track": { _ in }])
        #expect(problems(definition, bindings: bound).isEmpty)
    }

    @Test func unreachableStatesAreWarnedNotThrown() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") { On("go", to: "b") }
                StateNode("b")
                StateNode("island")
            })
        #expect(machine.warnings == [ValidationWarning(state: "island", problem: .unreachableState)])
    }

    @Test func shadowedTransitionsAreWarned() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") {
                    On("go", to: "b")
                    On("go.fast", to: "c")
                    On("stop", to: "c", guard: .inState("b"))
                    On("stop", to: "b")
                }
                StateNode("b")
                StateNode("c")
            })
        #expect(machine.warnings == [ValidationWarning(state: "a", transition: 1, problem: .transitionNeverTaken)])
    }

    @Test func unguardedEventlessTransitionShadowsTheStatesEventTransitions() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") {
                    On("go", to: "b")
                    Always(to: ["b"])
                    Always(to: ["a"])
                }
                StateNode("b")
            })
        #expect(
            machine.warnings == [
                ValidationWarning(state: "a", transition: 0, problem: .transitionNeverTaken),
                ValidationWarning(state: "a", transition: 2, problem: .transitionNeverTaken),
            ])
    }

    @Test func unknownValidNextStateAndEmptyIDAreRejected() {
        let errors = problems(
            MachineDefinition(
                name: "m",
                states: [
                    StateDefinition(id: "a", validNextStates: ["ghost"]),
                    StateDefinition(id: ""),
                ]))
        #expect(errors.contains(ValidationError(state: "a", problem: .unknownTarget("ghost"))))
        #expect(errors.contains(ValidationError(state: "", problem: .emptyID)))
    }

    @Test func everyProblemIsReportedAtOnceWithReadableDescriptions() {
        let errors = problems(
            MachineDefinition("m") {
                StateNode("a") { On("x", to: "missing") }
                StateNode("a")
                HistoryNode("h")
            })
        #expect(errors.count == 3)
        let description = MachineError.invalidDefinition(errors).description
        #expect(description.contains("state 'a', transition #0: unknown target 'missing'"))
        #expect(description.contains("state 'a': duplicate state id"))
        #expect(description.contains("state 'h': history state outside a compound or parallel state"))
    }

    /// An interchange document (outside data) whose history defaults lead back to a history would
    /// make entering it recurse without end; one whose `initial` default leaves the history's
    /// parent is refused like a default transition that does.
    @Test func historyDefaultsThatLoopOrLeaveTheParentAreRejected() throws {
        func problems(_ states: String) throws -> [ValidationError] {
            let json =
                #"{"format":"rewind.machine","formatVersion":1,"machine":{"name":"m","initial":["o"],"states":[{"id":"o","transitions":[{"events":["go"],"targets":["c"]}]},"#
                + states + "]}}"
            return self.problems(try MachineDefinition(jsonDocument: Data(json.utf8)))
        }
        // The parent's initial is the history, which has no default of its own.
        #expect(
            try problems(#"{"id":"c","initial":["h"],"children":[{"id":"h","kind":"history"},{"id":"x"}]}"#)
                == [ValidationError(state: "h", problem: .historyDefaultLoop)])
        // The history's default is itself.
        #expect(
            try problems(#"{"id":"c","children":[{"id":"h","kind":"history","initial":["h"]},{"id":"x"}]}"#)
                == [ValidationError(state: "h", problem: .historyDefaultLoop)])
        // Two histories default to each other.
        #expect(
            try problems(
                #"{"id":"c","children":[{"id":"h1","kind":"history","initialTransition":{"targets":["h2"]}},"#
                    + #"{"id":"h2","kind":"history","initialTransition":{"targets":["h1"]}},{"id":"x"}]}"#)
                == [
                    ValidationError(state: "h1", problem: .historyDefaultLoop),
                    ValidationError(state: "h2", problem: .historyDefaultLoop),
                ])
        // An `initial` default outside the parent.
        #expect(
            try problems(#"{"id":"c","children":[{"id":"h","kind":"history","initial":["o"]},{"id":"x"}]}"#)
                == [ValidationError(state: "h", problem: .historyDefaultOutsideParent("o"))])
        // A history defaulting to a nested history (deeper, so entering ends) is fine.
        #expect(
            try problems(
                #"{"id":"c","children":[{"id":"h","kind":"history","initial":["hq"]},"#
                    + #"{"id":"q","children":[{"id":"hq","kind":"history"},{"id":"x"}]}]}"#
            ).isEmpty)
    }
}
