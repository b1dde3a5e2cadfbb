import Testing
@testable import RewindMachine

struct StateKitTests {
    @Test func rootEntersLoadingThenAnswersBubbleFromAnyChild() throws {
        let interpreter = Interpreter(machine: try ExampleMachines.StateKit.machine())
        var log: [String] = []
        for id in ExampleMachines.StateKit.State.allCases.map(\.rawValue) {
            interpreter.onDidEnter(id) { _ in log.append("enter \(id)") }
            interpreter.onWillExit(id) { _ in log.append("exit \(id)") }
        }
        try interpreter.start()
        #expect(log == ["enter root", "enter loading"])
        log.removeAll()
        try interpreter.send("apiRespondedError")
        try interpreter.send("userPressedRetryButton")
        try interpreter.send("apiRespondedSuccessfully")
        #expect(log == [
            "exit loading", "enter errorView",
            "exit errorView", "enter loading",
            "exit loading", "enter regularView",
        ])
        #expect(interpreter.state.configuration == ["root", "regularView"])
    }

    @Test func retryOnlyExistsOnTheErrorView() throws {
        let machine = try ExampleMachines.StateKit.machine()
        let loading = try machine.start().state
        #expect(throws: MachineError.invalidTransition(from: ["root", "loading"], event: "userPressedRetryButton")) {
            try machine.send("userPressedRetryButton", in: loading)
        }
        let regular = try machine.send("apiRespondedSuccessfully", in: loading).state
        #expect(throws: MachineError.self) { try machine.send("userPressedRetryButton", in: regular) }
        // The root's handlers still apply from the regular view.
        #expect(try machine.send("apiRespondedError", in: regular).target == ["root", "errorView"])
    }
}
