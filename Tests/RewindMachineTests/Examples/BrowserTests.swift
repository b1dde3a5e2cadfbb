import RewindExamples
import Testing

@testable import RewindMachine

struct BrowserTests {
    @Test func browserReturnsToTheExactScreenThroughDeepHistory() throws {
        let machine = try ExampleMachines.Browser.machine()
        #expect(machine.warnings.isEmpty)
        var state = try run(machine, "showProfile", "openSettings", "closeSettings")
        #expect(leaves(machine, state) == ["profile"])
        state = try machine.send("showFeed", in: state).state
        #expect(leaves(machine, state) == ["feedList"])
        #expect(throws: MachineError.self) { try machine.send("closeSettings", in: state) }
    }
}
