import Foundation
import RewindTestSupport
import Testing

/// The generated tests of RecordedCheckoutSessions.swift (written by `rewind session-test`), run
/// in a subprocess of this test binary against the diverging checkout definition
/// (`RecordedSessionFixture.definitionVariable`): they must fail, naming the session and the
/// version, and only where the definition diverges. In this process they run against the
/// recorded definition and pass.
struct DivergingDefinitionTests {
    /// This test binary (Linux: the `.xctest` executable `swift test` runs), when it can be run again.
    static var testBinary: URL? {
        guard let executable = Bundle.main.executableURL, executable.lastPathComponent.hasSuffix(".xctest"),
            FileManager.default.isExecutableFile(atPath: executable.path)
        else { return nil }
        return executable
    }

    @Test(.enabled(if: testBinary != nil, "runs the Linux test binary again; macOS runs tests through a helper"))
    func theGeneratedTestsFailOnADivergingDefinitionNamingTheSessionAndTheVersion() async throws {
        // In the subprocess the variable is set: this test is not run there (filtered out), and
        // would not recurse if it were.
        guard ProcessInfo.processInfo.environment[RecordedSessionFixture.definitionVariable] == nil else { return }
        let binary = try #require(Self.testBinary)
        var environment = ProcessInfo.processInfo.environment
        environment[RecordedSessionFixture.definitionVariable] = "diverging"
        let output = try await runProcess(
            binary, arguments: ["--testing-library", "swift-testing", "--filter", "RecordedCheckoutSessions"],
            environment: environment)
        let all = output.stdout + output.stderr
        #expect(output.status != 0, "the generated tests passed on the diverging definition: \(output)")
        #expect(
            all.contains(
                "session 'order-1' version 3 (event 'add'): configuration: recorded [\"cart\"] but the machine reached [\"address\"]"
            ), "\(output)")
        // order-2 never adds an item: the diverging definition reproduces it.
        #expect(all.contains(#"session order-2 (checkout, versions 1–5)" passed"#), "\(output)")
        #expect(!all.contains("session 'order-2' version"), "\(output)")
        #expect(all.contains("2 tests"), "both generated tests ran: \(output)")
    }
}
