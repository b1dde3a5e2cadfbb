import Testing
@testable import RewindMachine

struct BrowserAndUploadTests {
    @Test func browserReturnsToTheExactScreenThroughDeepHistory() throws {
        let machine = try ExampleMachines.Browser.machine()
        #expect(machine.warnings.isEmpty)
        var state = try run(machine, "showProfile", "openSettings", "closeSettings")
        #expect(leaves(machine, state) == ["profile"])
        state = try machine.send("showFeed", in: state).state
        #expect(leaves(machine, state) == ["feedList"])
        #expect(throws: MachineError.self) { try machine.send("closeSettings", in: state) }
    }

    @Test func uploadCompletesOnlyWhenBothRegionsFinish() throws {
        let machine = try ExampleMachines.Upload.machine()
        #expect(machine.warnings.isEmpty)
        let thumbnailFirst = try run(machine, "start", "rendered")
        #expect(leaves(machine, thumbnailFirst) == ["sending", "thumbnailReady"])
        #expect(try machine.send("sent", in: thumbnailFirst).state.configuration == ["complete"])
        #expect(try run(machine, "start", "sent", "rendered", "reset").configuration == ["idle"])
    }
}
