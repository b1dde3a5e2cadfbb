import RewindExamples
import Testing

@testable import RewindMachine

struct LoadingViewTests {
    typealias LoadingView = ExampleMachines.LoadingView

    @Test func readyCarriesTheModelAndErrorCarriesTheMessage() throws {
        let machine = try LoadingView.machine()
        let model = LoadingView.Model(title: "Inbox", items: ["a", "b"])
        var state = try machine.start().state
        state = try machine.send(try Event("loaded", encoding: model), in: state).state
        #expect(state.configuration == ["ready"])
        #expect(try state.data(of: "ready", as: LoadingView.Model.self) == model)
        state = try machine.send("reload", in: state).state
        state = try machine.send("failed", payload: "offline", in: state).state
        #expect(state.configuration == ["error"])
        #expect(state.data["error"] == "offline")
        state = try machine.send("retry", in: state).state
        #expect(state.configuration == ["loading"])
    }

    @Test func willAndDidTransitionFrameEachStep() throws {
        let interpreter = Interpreter(machine: try LoadingView.machine())
        var log: [String] = []
        interpreter.onWillTransition { log.append("will \($0.from ?? []) → \($0.to)") }
        interpreter.onDidTransition { log.append("did \($0.from ?? []) → \($0.to)") }
        try interpreter.start()
        try interpreter.send("failed")
        #expect(
            log == [
                "will [] → [\"loading\"]", "did [] → [\"loading\"]",
                "will [\"loading\"] → [\"error\"]", "did [\"loading\"] → [\"error\"]",
            ])
    }

    /// StateViewController's `willTransition(to: .ready(model))`: the hook sees the model the
    /// next state will carry before anything is exited, while the current state is still loading.
    @Test func willTransitionSeesTheNextStatesModel() throws {
        let interpreter = Interpreter(machine: try LoadingView.machine())
        let model = LoadingView.Model(title: "Inbox", items: ["a", "b"])
        var log: [String] = []
        interpreter.onWillTransition { change in
            let next = (try? change.data(as: LoadingView.Model.self)).flatMap {
                $0.map { "ready(\($0.title), \($0.items))" }
            }
            log.append("will \(change.nextState ?? "-") \(next ?? "\(change.data)")")
        }
        interpreter.onWillExit("loading") { _ in log.append("exit loading") }
        try interpreter.start()
        log.removeAll()
        try interpreter.send(try Event("loaded", encoding: model))
        try interpreter.send("reload")
        try interpreter.send("failed", payload: "offline")
        #expect(
            log == [
                "will ready ready(Inbox, [\"a\", \"b\"])", "exit loading",
                "will loading \(JSONValue.null)",
                "will error \(JSONValue.string("offline"))", "exit loading",
            ])
    }

    @Test func invalidMovesAreRejected() throws {
        let machine = try LoadingView.machine()
        let loading = try machine.start().state
        #expect(throws: MachineError.self) { try machine.send("retry", in: loading) }
        #expect(throws: MachineError.self) { try machine.send("reload", in: loading) }
        let ready = try machine.send("loaded", in: loading).state
        #expect(throws: MachineError.invalidTransition(from: ["ready"], event: "loaded")) {
            try machine.send("loaded", in: ready)
        }
    }
}
