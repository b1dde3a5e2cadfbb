import Foundation
import RewindExamples
import Testing

@testable import RewindMachine

/// Hooks, queued requests, persistence veto, update forwarding, delayed sends.
struct InterpreterTests {
    @Test func hooksRunExitInnermostFirstThenTransitionThenEntryOutermostFirst() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("p") { StateNode("a") { On("go", to: "b") } }
                StateNode("q") { StateNode("b") }
            })
        let interpreter = Interpreter(machine: machine)
        var calls: [String] = []
        interpreter.onWillTransition { calls.append("willTransition(to: \($0.to))") }
        interpreter.onDidTransition { calls.append("didTransition(from: \($0.from ?? []))") }
        interpreter.onTransition { calls.append("transition \($0.transitions.map(\.source))") }
        for id in ["p", "a", "q", "b"] {
            interpreter.onWillExit(id) { calls.append("willExit \($0.state ?? "")") }
            interpreter.onDidEnter(id) { calls.append("didEnter \($0.state ?? "")") }
        }
        try interpreter.start()
        calls.removeAll()
        try interpreter.send("go")
        #expect(
            calls == [
                "willTransition(to: [\"b\"])",
                "willExit a", "willExit p",
                "transition [\"a\"]",
                "didEnter q", "didEnter b",
                "didTransition(from: [\"a\"])",
            ])
    }

    @Test func firstEntryHasNoPreviousState() throws {
        let interpreter = Interpreter(machine: try ExampleMachines.Kanji.machine())
        var previous: [String?] = []
        for id in ["all", "detail"] {
            interpreter.onDidEnter(id) { previous.append($0.previousState) }
        }
        try interpreter.enter("all")
        try interpreter.enter("detail", data: ["character": "日", "meanings": ["sun"]])
        try interpreter.enter("all")
        #expect(previous == [nil, "all", "detail"])
    }

    @Test func hooksSeeTheDataOfTheirState() throws {
        typealias Kanji = ExampleMachines.Kanji.Character
        let interpreter = Interpreter(machine: try ExampleMachines.Kanji.machine())
        var entered: [Kanji?] = []
        var exited: [Kanji?] = []
        interpreter.onDidEnter("detail") { entered.append(try? $0.data(as: Kanji.self)) }
        interpreter.onWillExit("detail") { exited.append(try? $0.data(as: Kanji.self)) }
        let kanji = Kanji(character: "水", meanings: ["water"])
        try interpreter.start()
        try interpreter.enter("detail", data: try JSONValue(encoding: kanji))
        try interpreter.enter("all")
        #expect(entered == [kanji])
        #expect(exited == [kanji])
    }

    /// The machine-wide hooks' data for a compound target: the entered compound state carries
    /// the data, its initial child none, so they see the compound's; a nested target that carries
    /// data itself wins; a step into states carrying nothing gives `null`.
    @Test func transitionHooksSeeTheDataOfTheInnermostNextStateOrItsNearestAncestor() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("home") {
                    On("open", to: "settings")
                    On("openPrivacy", to: "privacy")
                }
                StateNode("settings", initial: "general") {
                    StateNode("general")
                    StateNode("privacy")
                    On("close", to: "home")
                }
            })
        let interpreter = Interpreter(machine: machine)
        var will: [String] = []
        var did: [String] = []
        interpreter.onWillTransition { will.append("\($0.to) \($0.data)") }
        interpreter.onDidTransition { did.append("\($0.to) \($0.data)") }
        try interpreter.start()
        try interpreter.send("open", payload: ["tab": 1])
        try interpreter.send("close")
        try interpreter.send("openPrivacy", payload: "only privacy")
        try interpreter.send("close")
        #expect(interpreter.state.data.isEmpty)
        let expected = [
            "[\"home\"] \(JSONValue.null)",
            "[\"general\"] \(JSONValue.object(["tab": 1]))",
            "[\"home\"] \(JSONValue.null)",
            "[\"privacy\"] \(JSONValue.string("only privacy"))",
            "[\"home\"] \(JSONValue.null)",
        ]
        #expect(will == expected)
        #expect(did == expected)
    }

    @Test func requestsFromInsideHooksAreQueuedAndRunAfterTheStep() throws {
        let machine = try ExampleMachines.LoadingView.machine()
        let interpreter = Interpreter(machine: machine)
        var calls: [String] = []
        interpreter.onDidEnter("loading") { _ in
            calls.append("enter loading")
            let result = try? interpreter.send("loaded", payload: ["title": "T", "items": []])
            calls.append("send returned \(result == nil ? "nil (queued)" : "a step")")
            calls.append("still in \(interpreter.state.configuration)")
        }
        interpreter.onDidTransition { calls.append("didTransition to \($0.to)") }
        interpreter.onDidEnter("ready") { _ in calls.append("enter ready") }
        try interpreter.start()
        #expect(
            calls == [
                "enter loading", "send returned nil (queued)", "still in [\"loading\"]",
                "didTransition to [\"loading\"]",
                "enter ready", "didTransition to [\"ready\"]",
            ])
        #expect(interpreter.state.configuration == ["ready"])
    }

    @Test func queuedRequestErrorsAreKeptNotThrownIntoTheHook() throws {
        let interpreter = Interpreter(machine: try ExampleMachines.Onboarding.machine())
        interpreter.onDidEnter("greeting") { _ in _ = try? interpreter.send("loggedIn") }
        try interpreter.start()
        try interpreter.send("launch")
        #expect(interpreter.state.configuration == ["greeting"])
        #expect(interpreter.deferredErrors.count == 1)
        #expect(
            (interpreter.deferredErrors.first as? MachineError)
                == .invalidTransition(from: ["greeting"], event: "loggedIn"))
        #expect(interpreter.takeDeferredErrors().count == 1)
        #expect(interpreter.deferredErrors.isEmpty)
    }

    @Test func persistenceCallbackSeesEachStepBeforeHooksAndCanVetoIt() throws {
        struct DiskFull: Error {}
        let interpreter = Interpreter(machine: try ExampleMachines.Onboarding.machine())
        var log: [String] = []
        var failNext = false
        interpreter.perform = { step in
            if failNext { throw DiskFull() }
            log.append("persist \(step.event?.name ?? "start") → \(step.target)")
        }
        interpreter.onDidEnter("greeting") { _ in log.append("hook greeting") }
        interpreter.onDidEnter("login") { _ in log.append("hook login") }
        try interpreter.start()
        try interpreter.send("launch")
        failNext = true
        #expect(throws: DiskFull.self) { try interpreter.send("start") }
        #expect(interpreter.state.configuration == ["greeting"])
        #expect(log == ["persist start → [\"initial\"]", "persist launch → [\"greeting\"]", "hook greeting"])
    }

    @Test func updateIsForwardedToActiveStatesOnly() throws {
        let interpreter = Interpreter(machine: try ExampleMachines.StateKit.machine())
        var updates: [String] = []
        for id in ["root", "loading", "errorView"] {
            interpreter.onUpdate(id) { updates.append("\(id) \($0)") }
        }
        try interpreter.start()
        interpreter.update(deltaTime: 0.5)
        try interpreter.send("apiRespondedError")
        interpreter.update(deltaTime: 0.25)
        #expect(updates == ["root 0.5", "loading 0.5", "root 0.25", "errorView 0.25"])
    }

    @Test func delayedSendsAreDeliveredWhenTheClockReachesThem() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("splash") {
                    OnEntry(.send(event: "timeout", delay: .milliseconds(2_000)))
                    On("timeout", to: "home")
                }
                StateNode("home")
            })
        let clock = ManualClock(at: .milliseconds(10_000))
        let interpreter = Interpreter(machine: machine, clock: clock)
        try interpreter.start()
        #expect(try interpreter.deliverDueSends().isEmpty)
        clock.advance(by: .milliseconds(1_999))
        #expect(try interpreter.deliverDueSends().isEmpty)
        clock.advance(by: .milliseconds(1))
        let steps = try interpreter.deliverDueSends()
        #expect(steps.map { $0.event?.name } == ["timeout"])
        #expect(interpreter.state.configuration == ["home"])
    }

    @Test func delaysCountInWholeMillisecondsInTheMachineAndItsDocuments() throws {
        // A delay finer than a millisecond: the machine schedules, and the JSON document and
        // SCXML write, its whole milliseconds, so a re-imported definition behaves the same.
        let definition = MachineDefinition("m") {
            StateNode("a") { OnEntry(.send(event: "tick", delay: .microseconds(1_500_900), id: "t")) }
        }
        let started = try Machine(definition).start(now: .milliseconds(10))
        #expect(started.state.pendingSends.map(\.due) == [.milliseconds(1_510)])
        let document = String(decoding: definition.jsonDocument(), as: UTF8.self)
        #expect(document.contains(#""delayMilliseconds" : 1500"#))
        #expect(definition.scxml().contains(#"<send event="tick" delay="1500ms" id="t"/>"#))
        let reimported = try MachineDefinition(jsonDocument: Data(document.utf8))
        #expect(try Machine(reimported).start(now: .milliseconds(10)).state == started.state)
    }

    @Test func aDelayBeyondTheClockIsDueAtTheEndOfTimeInsteadOfTrapping() throws {
        // A JSON interchange document (outside data) may carry any Int as a delay.
        let json = #"""
            {"format":"rewind.machine","formatVersion":1,"machine":{"name":"m","initial":["a"],"states":[
              {"id":"a","onEntry":[{"send":{"event":"late","delayMilliseconds":9223372036854775807}}],
               "transitions":[{"events":["go"],"targets":["b"],"actions":[{"send":{"event":"later","delayMilliseconds":9223372036854775000}}]}]},
              {"id":"b"}]}}
            """#
        let machine = try Machine(try MachineDefinition(jsonDocument: Data(json.utf8)))
        let started = try machine.start(now: .milliseconds(1_700_000_000_000))
        #expect(started.state.pendingSends.map(\.due) == [.milliseconds(Int64.max)])
        let moved = try machine.send("go", in: started.state, now: .milliseconds(1_700_000_000_000))
        #expect(moved.state.pendingSends.map(\.due) == [.milliseconds(Int64.max), .milliseconds(Int64.max)])
    }

    @Test func zeroDelaySendsRunRightAfterTheStep() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") { On("go", to: "b", actions: [.send(event: "next")]) }
                StateNode("b") { On("next", to: "c") }
                StateNode("c")
            })
        let interpreter = Interpreter(machine: machine, clock: ManualClock())
        var steps: [String] = []
        interpreter.perform = { steps.append($0.event?.name ?? "start") }
        try interpreter.start()
        let step = try interpreter.send("go")
        #expect(step?.target == ["b"])
        #expect(interpreter.state.configuration == ["c"])
        #expect(steps == ["start", "go", "next"])
    }

    @Test func setNeedsTransitionInsideAHookRunsAfterIt() throws {
        let interpreter = Interpreter(machine: try ExampleMachines.Map.machine())
        interpreter.onDidEnter("preview") { _ in try? interpreter.setNeedsTransition(to: "navigation") }
        try interpreter.start()
        try interpreter.enter("preview")
        #expect(interpreter.state.configuration == ["navigation"])
        #expect(interpreter.canEnter("start"))
        #expect(!interpreter.canEnter("preview"))
    }

    @Test func sendsThatKeepSchedulingThemselvesStopWithALoopError() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") {
                    On("go", to: "b")
                }
                StateNode("b") {
                    OnEntry(.send(event: "again"))
                    On("again", to: "b")
                }
            }, options: Machine.Options(microstepLimit: 10))
        let interpreter = Interpreter(machine: machine, clock: ManualClock())
        try interpreter.start()
        try interpreter.send("go")
        #expect(interpreter.deferredErrors.count == 1)
        #expect {
            throw interpreter.deferredErrors[0]
        } throws: { error in
            guard case MachineError.eventLoopLimitExceeded(10, "again", _) = error else { return false }
            return true
        }
    }

    @Test func restoredInterpreterContinuesWithoutRunningHooks() throws {
        let machine = try ExampleMachines.Browser.machine()
        let saved = try run(machine, "open", "showComments", "openSettings")
        let interpreter = Interpreter(machine: machine)
        var entered: [String] = []
        for id in machine.stateIDs { interpreter.onDidEnter(id) { entered.append($0.state ?? "") } }
        interpreter.restore(saved)
        #expect(entered.isEmpty)
        try interpreter.send("closeSettings")
        #expect(entered == ["browse", "feed", "post", "postComments"])
    }
}
