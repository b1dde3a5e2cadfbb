import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Erasure while another process writes the same store: nothing of the other process is lost,
/// and no erased session comes back through the other process's cached session tail.
struct ErasureTwoProcessesTests {
    @Test(.hangGuard)
    func erasingWhileAnotherProcessSendsLosesNothingOfItsAndBringsNothingBack() async throws {
        guard let helper = TwoProcessesTests.helperURL() else {
            Issue.record(
                "RewindTestHelper was not found next to the test bundle: build it with `swift build --build-tests`")
            return
        }
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let count = 200
        let rounds = 40
        let output = fixture.directory.url.deletingLastPathComponent()
            .appendingPathComponent("\(fixture.directory.url.lastPathComponent)-alpha.jsonl")
        defer { try? FileManager.default.removeItem(at: output) }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let store = fixture.directory.path
        let startAt = Timestamp.now().microsecondsSince1970 / 1000 + 1_000
        async let status = TwoProcessesTests.runHelper(
            helper, [store, "alpha", "shared", "own-alpha", String(count), String(startAt)], output: output)
        // Sessions of this process, each written and erased while the helper sends: their heads
        // pass through both processes' session tails.
        for round in 0..<rounds {
            let id = try SessionID("doomed-\(round)")
            let session = try await engine.startSession(id: id, machine: "ticker")
            for n in 0..<3 { try await session.send("tick", payload: ["n": .number(Double(n))]) }
            try engine.erase(id)
        }
        #expect(try await status == 0)

        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        let reports = try lines.map { try JSONDecoder().decode(TwoProcessesTests.Report.self, from: Data($0.utf8)) }
        #expect(reports.filter { $0.kind == "error" }.isEmpty)
        #expect(reports.filter { $0.kind == "ack" }.count == 2 * count)
        let check = try engine.checkStore()
        #expect(check.isConsistent, "\(check)")
        #expect(check.erased == UInt64(rounds * 4))
        #expect(try engine.sessions().map(\.session) == [SessionID("own-alpha"), "shared"])
        #expect(try engine.store.sessionInfo(for: "own-alpha")?.headVersion == UInt64(1 + count))
        #expect(try engine.store.sessionInfo(for: "shared")?.headVersion == UInt64(1 + count))
    }
}
