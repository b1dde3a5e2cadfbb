import RewindExamples
import Testing

@testable import RewindMachine

struct UploadTests {
    @Test func uploadCompletesOnlyWhenBothRegionsFinish() throws {
        let machine = try ExampleMachines.Upload.machine()
        #expect(machine.warnings.isEmpty)
        let thumbnailFirst = try run(machine, "start", "rendered")
        #expect(leaves(machine, thumbnailFirst) == ["sending", "thumbnailReady"])
        #expect(try machine.send("sent", in: thumbnailFirst).state.configuration == ["complete"])
        #expect(try run(machine, "start", "sent", "rendered", "reset").configuration == ["idle"])
    }
}
