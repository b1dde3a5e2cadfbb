import Foundation
import RewindTestSupport
import Testing

/// `rewind` itself: `--version`.
struct RewindCommandTests {
    @Test func versionNamesTheToolAndTheFormatsItReadsAndWrites() async throws {
        let tool = try RewindTool(store: "unused")
        let output = try await runProcess(tool.executable, arguments: ["--version"])
        #expect(output.status == 0, "\(output)")
        let line = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.hasPrefix("rewind "), "\(line)")
        #expect(line.contains("store format") && line.contains("session archive format"), "\(line)")
    }
}
