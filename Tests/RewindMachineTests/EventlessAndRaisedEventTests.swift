import Testing

@testable import RewindMachine

/// Eventless transitions, raised (internal) events and the loop bound.
struct EventlessAndRaisedEventTests {
    @Test func eventlessTransitionsRunToCompletionWithinTheStep() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") { On("go", to: "b") }
                StateNode("b") { Always(to: ["c"]) }
                StateNode("c") { Always(to: ["d"], guard: .inState("c")) }
                StateNode("d")
            })
        let step = try machine.send("go", in: try machine.start().state)
        #expect(step.target == ["d"])
        #expect(step.microsteps.map { $0.event?.name } == ["go", nil, nil])
    }

    @Test func raisedEventsAreProcessedBeforeTheNextExternalEvent() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") { On("go", to: "b", actions: [.raise(event: "next")]) }
                StateNode("b") {
                    OnEntry(.raise(event: "again"))
                    On("next", to: "c")
                    On("again", to: "a")
                }
                StateNode("c") { On("again", to: "d") }
                StateNode("d")
            })
        // "next" was raised first, so b → c on it, then "again" moves c → d.
        let step = try machine.send("go", in: try machine.start().state)
        #expect(step.target == ["d"])
        #expect(step.microsteps.map { $0.event?.name } == ["go", "next", "again"])
        #expect(step.state.internalQueue.isEmpty)
    }

    @Test func eventlessTransitionsTakePrecedenceOverRaisedEvents() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") { On("go", to: "b", actions: [.raise(event: "r")]) }
                StateNode("b") {
                    Always(to: ["c"])
                    On("r", to: "x")
                }
                StateNode("c") { On("r", to: "d") }
                StateNode("d")
                StateNode("x")
            })
        #expect(try machine.send("go", in: try machine.start().state).target == ["d"])
    }

    @Test func infiniteEventlessLoopStopsWithAClearError() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") { On("go", to: "b") }
                StateNode("b") { Always(to: ["c"]) }
                StateNode("c") { Always(to: ["b"]) }
            }, options: Machine.Options(microstepLimit: 50))
        let state = try machine.start().state
        #expect {
            try machine.send("go", in: state)
        } throws: { error in
            guard case MachineError.eventLoopLimitExceeded(let limit, let event, _) = error else { return false }
            return limit == 50 && event == "go" && "\(error)".contains("loop")
        }
    }

    @Test func infiniteRaisedEventLoopStopsToo() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") {
                    On("ping", actions: [.raise(event: "ping")])
                }
            }, options: Machine.Options(microstepLimit: 20))
        #expect(throws: MachineError.self) { try machine.send("ping", in: try machine.start().state) }
    }

    @Test func customActionsChangeTheContextAndRaiseEvents() throws {
        let bindings = Bindings(actions: [
            "count": { scope in
                let count = scope.context["count"]?.doubleValue ?? 0
                scope.context["count"] = .number(count + 1)
                if count + 1 >= 3 { scope.raise("enough") }
            }
        ])
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("counting") {
                    On("tap", actions: [.custom("count")])
                    On("enough", to: "done")
                }
                StateNode("done")
            }, bindings: bindings)
        var state = try machine.start(context: ["count": 0]).state
        state = try machine.send("tap", in: state).state
        state = try machine.send("tap", in: state).state
        #expect(state.context["count"] == 2)
        #expect(state.configuration == ["counting"])
        state = try machine.send("tap", in: state).state
        #expect(state.configuration == ["done"])
    }

    @Test func failingCustomActionAbandonsTheStep() throws {
        struct Boom: Error, Equatable { var code = 7 }
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") { On("go", to: "b", actions: [.custom("explode")]) }
                StateNode("b")
            }, bindings: Bindings(actions: ["explode": { _ in throw Boom() }]))
        let state = try machine.start().state
        #expect {
            try machine.send("go", in: state)
        } throws: { error in
            // The app's own error comes back typed, not as text.
            guard case MachineError.actionFailed(let action, let source, let cause) = error else { return false }
            return action == "explode" && source == "a" && cause.error as? Boom == Boom()
        }
    }

    @Test func entryExitAndTransitionActionsRunInOrder() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("p") {
                    StateNode("a") {
                        OnExit(.log(label: "exit", message: "a"))
                        On("go", to: "b", actions: [.log(label: "transition", message: nil)])
                    }
                    OnExit(.log(label: "exit", message: "p"))
                }
                StateNode("q") {
                    OnEntry(.log(label: "enter", message: "q"))
                    StateNode("b") { OnEntry(.log(label: "enter", message: "b")) }
                }
            })
        let step = try machine.send("go", in: try machine.start().state)
        #expect(step.logs == ["exit: a", "exit: p", "transition", "enter: q", "enter: b"])
    }
}
