import RewindExamples
import Testing

@testable import RewindMachine

struct HistoryTests {
    @Test func deepHistoryRestoresTheNestedStateLeft() throws {
        let machine = try ExampleMachines.Browser.machine()
        let state = try run(machine, "open", "showComments", "openSettings")
        #expect(state.configuration == ["app", "settings"])
        #expect(state.history["browse.history"] == ["postComments"])
        let back = try machine.send("closeSettings", in: state)
        #expect(leaves(machine, back.state) == ["postComments"])
        #expect(back.entered == ["browse", "feed", "post", "postComments"])
    }

    @Test func shallowHistoryRestoresTheChildThenItsDefaultEntry() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("outer") {
                    HistoryNode("h", .shallow)
                    StateNode("one") {
                        StateNode("one.a")
                        StateNode("one.b")
                        On("next", to: "one.b")
                    }
                    StateNode("two") { On("back", to: "one") }
                    On("toTwo", to: "two")
                    On("leave", to: "away")
                }
                StateNode("away") { On("return", to: "h") }
            })
        let state = try run(machine, "next", "leave")
        #expect(state.history["h"] == ["one"])
        // Shallow: "one" is restored but enters its initial child, not "one.b".
        #expect(leaves(machine, try machine.send("return", in: state).state) == ["one.a"])
    }

    @Test func historyWithoutMemoryTakesItsDefault() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") { On("go", to: "h") }
                StateNode("b") {
                    HistoryNode("h", .deep, default: ["b2"])
                    StateNode("b1")
                    StateNode("b2")
                }
            })
        #expect(leaves(machine, try run(machine, "go")) == ["b2"])
    }

    @Test func deepHistoryInsideParallelRemembersEveryRegion() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("shell") {
                    HistoryNode("h", .deep)
                    ParallelNode("p") {
                        StateNode("r1") {
                            StateNode("x1") { On("t", to: "y1") }
                            StateNode("y1")
                        }
                        StateNode("r2") {
                            StateNode("x2")
                            StateNode("y2") { On("u", to: "x2") }
                        }
                    }
                    On("out", to: "outside")
                }
                StateNode("outside") { On("in", to: "h") }
            })
        let state = try run(machine, "t", "out", "in")
        #expect(leaves(machine, state) == ["y1", "x2"])
    }

    @Test func aRestoredHistoryMemoryOutsideItsParentIsAnErrorNotARecursion() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("outer") {
                    HistoryNode("h", .shallow)
                    StateNode("one")
                    On("leave", to: "away")
                }
                StateNode("away") { On("return", to: "h") }
            })
        let away = try run(machine, "leave")
        // A restored state (a stored snapshot, outside data) whose memory names the history itself,
        // a state outside its parent, or the parent: the machine refuses it rather than recursing.
        for remembered in ["h", "away", "outer"] {
            var state = away
            state.history = ["h": [remembered]]
            #expect(throws: MachineError.invalidHistory(history: "h", remembered: remembered)) {
                try machine.send("return", in: state)
            }
        }
        var state = away
        state.history = ["h": ["one"]]
        #expect(try machine.send("return", in: state).state.configuration == ["outer", "one"])
    }
}
