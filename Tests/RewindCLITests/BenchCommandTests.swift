import Foundation
import RewindTestSupport
import Testing

/// `rewind bench`: quick runs at each durability level on a temporary store. (Speed itself is
/// not asserted.)
struct BenchCommandTests {
    @Test func benchReportsItsRunsWithTheTransitionsItSent() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("untouched").path
        let tool = try RewindTool(store: store)
        let output = try await runProcess(
            tool.executable, arguments: ["bench", "--transitions", "40", "--sessions", "4", "--json"])
        #expect(output.status == 0, "\(output)")
        let runs = try JSONDecoder().decode([CommandOutputs.BenchRun].self, from: Data(output.stdout.utf8))
        #expect(runs.map(\.sessions) == [1, 1, 1, 4, 4, 4])
        #expect(runs.map(\.transitions) == [40, 40, 40, 40, 40, 40])
        #expect(runs.map(\.run).filter { $0.hasPrefix("lastCommitMayRollBack") }.count == 2)
        for run in runs {
            #expect(run.seconds > 0, "\(run.run)")
            #expect(run.transitionsPerSecond > 0, "\(run.run)")
            #expect(run.p50Microseconds <= run.p99Microseconds, "\(run.run)")
            #expect(run.averageBatch >= 1, "\(run.run)")
        }
        let refused = try await runProcess(tool.executable, arguments: ["bench", "--transitions", "0"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--transitions"))
    }
}
