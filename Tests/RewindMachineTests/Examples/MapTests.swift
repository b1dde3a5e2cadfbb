import RewindExamples
import Testing

@testable import RewindMachine

struct MapTests {
    @Test func searchPreviewNavigateAndClear() throws {
        let interpreter = Interpreter(machine: try ExampleMachines.Map.machine())
        var log: [String] = []
        for state in ExampleMachines.Map.State.allCases {
            interpreter.onDidEnter(state.rawValue) {
                log.append("enter \($0.state ?? "") from \($0.previousState ?? "nil")")
            }
            interpreter.onWillExit(state.rawValue) { log.append("exit \($0.state ?? "") to \($0.nextState ?? "nil")") }
        }
        try interpreter.start()
        try interpreter.enter("preview")
        try interpreter.enter("navigation")
        try interpreter.enter("start")
        #expect(
            log == [
                "enter start from nil",
                "exit start to preview", "enter preview from start",
                "exit preview to navigation", "enter navigation from preview",
                "exit navigation to start", "enter start from navigation",
            ])
    }

    @Test func invalidMovesAreRefused() throws {
        let machine = try ExampleMachines.Map.machine()
        let start = try machine.start().state
        #expect(throws: MachineError.cannotEnter(from: ["start"], to: "navigation")) {
            try machine.enter("navigation", in: start)
        }
        #expect(throws: MachineError.cannotEnter(from: ["start"], to: "start")) {
            try machine.enter("start", in: start)
        }
        let navigation = try machine.enter("navigation", in: try machine.enter("preview", in: start).state).state
        #expect(throws: MachineError.cannotEnter(from: ["navigation"], to: "preview")) {
            try machine.enter("preview", in: navigation)
        }
    }
}
