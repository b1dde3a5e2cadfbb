import Testing

@testable import RewindMachine

struct StateSetTests {
    @Test(arguments: [10, 64, 65, 200])
    func insertsAndRemovesEveryIndex(count: Int) {
        var set = StateSet(count: count)
        #expect(set.isEmpty)
        for index in stride(from: 0, to: count, by: 3) { set[index] = true }
        for index in 0..<count { #expect(set[index] == (index % 3 == 0)) }
        for index in stride(from: 0, to: count, by: 3) { set[index] = false }
        #expect(set.isEmpty)
        set[count - 1] = true
        #expect(set[count - 1] && !set.isEmpty)
    }

    @Test func chartsBeyondSixtyFourStatesRunTheSame() throws {
        // 40 compound states of two children each: 120 states, deep history across them.
        let definition = MachineDefinition("big") {
            StateNode("shell") {
                HistoryNode("shell.history", .deep)
                for group in 0..<40 {
                    StateNode("g\(group)") {
                        StateNode("g\(group).a") { On("flip", to: "g\(group).b") }
                        StateNode("g\(group).b")
                        On("next", to: "g\((group + 1) % 40)")
                    }
                }
                On("leave", to: "outside")
            }
            StateNode("outside") { On("back", to: "shell.history") }
        }
        let machine = try Machine(definition)
        var state = try machine.start().state
        for _ in 0..<39 { state = try machine.send("next", in: state).state }
        state = try machine.send("flip", in: state).state
        #expect(leaves(machine, state) == ["g39.b"])
        state = try machine.send("leave", in: state).state
        state = try machine.send("back", in: state).state
        #expect(state.configuration == ["shell", "g39", "g39.b"])
    }
}
