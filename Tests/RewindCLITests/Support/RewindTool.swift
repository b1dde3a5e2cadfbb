import Foundation
import RewindTestSupport
import Testing

/// The built `rewind` executable, run as a subprocess on one store.
struct RewindTool: Sendable {
    /// Why a test cannot run the tool.
    struct NotBuilt: Error, CustomStringConvertible {
        var description: String {
            "the `rewind` executable was not found next to the test bundle in "
                + "\(BuiltProduct.searchDirectories.map(\.path)): build it with `swift build --build-tests`"
        }
    }

    /// A command that did not print the JSON a test expected.
    struct UnexpectedOutput: Error, CustomStringConvertible {
        var arguments: [String]
        var output: ProcessOutput
        var reason: String
        var description: String { "rewind \(arguments.joined(separator: " ")): \(reason)\n\(output)" }
    }

    /// The executable.
    let executable: URL
    /// The store every command is run on (passed as `--store`).
    let store: String

    /// The tool on the store in `store`.
    init(store: String) throws {
        guard let executable = BuiltProduct.url(named: "rewind") else { throw NotBuilt() }
        self.executable = executable
        self.store = store
    }

    /// Runs `rewind ARGUMENTS --store STORE` under a UTF-8 locale (the text outputs' `›`, `→`
    /// and bars are ASCII under another), or under `locale` (`LC_ALL`).
    func run(_ arguments: [String], stdin: Data? = nil, locale: String = "C.UTF-8") async throws -> ProcessOutput {
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = locale
        return try await runProcess(
            executable, arguments: arguments + ["--store", store], stdin: stdin, environment: environment)
    }

    /// Runs `rewind ARGUMENTS --store STORE --json`, expects success, and decodes its output.
    func json<Value: Decodable>(_ type: Value.Type, _ arguments: [String]) async throws -> Value {
        let all = arguments + ["--json"]
        let output = try await run(all)
        guard output.status == 0 else {
            throw UnexpectedOutput(arguments: all, output: output, reason: "exit status \(output.status)")
        }
        do {
            return try JSONDecoder().decode(Value.self, from: Data(output.stdout.utf8))
        } catch {
            throw UnexpectedOutput(arguments: all, output: output, reason: "undecodable JSON: \(error)")
        }
    }

    /// Runs `rewind sessions …` (`arguments`, starting with `sessions`) with `--json` and returns its
    /// rows (`{"sessions": [...], "total": N}`).
    func sessionRows(_ arguments: [String]) async throws -> [CommandOutputs.SessionRow] {
        try await json(CommandOutputs.SessionList.self, arguments).sessions
    }

    /// Runs the command and expects success; returns its standard output.
    func text(_ arguments: [String]) async throws -> String {
        let output = try await run(arguments)
        guard output.status == 0 else {
            throw UnexpectedOutput(arguments: arguments, output: output, reason: "exit status \(output.status)")
        }
        return output.stdout
    }
}

/// Expects `output` to be a usage error: exit status 64, nothing on standard output, `Error: …`
/// first on standard error (ArgumentParser's usage lines may follow) with every one of `fragments`.
func expectUsageError(
    _ output: ProcessOutput, containing fragments: [String], sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(output.status == 64, "usage errors exit with status 64: \(output)", sourceLocation: sourceLocation)
    #expect(!output.terminatedBySignal, "\(output)", sourceLocation: sourceLocation)
    #expect(output.stdout.isEmpty, "\(output)", sourceLocation: sourceLocation)
    #expect(output.stderrLines.first?.hasPrefix("Error: ") == true, "\(output)", sourceLocation: sourceLocation)
    for fragment in fragments {
        #expect(
            output.stderr.contains(fragment), "missing '\(fragment)' in: \(output.stderr)",
            sourceLocation: sourceLocation)
    }
}

/// Expects `output` to be the CLI's failure: exit status 2, nothing on standard output, and
/// exactly one line on standard error, `Error: …`, containing every one of `fragments` (and no
/// stack trace).
func expectOneLineError(
    _ output: ProcessOutput, containing fragments: [String], sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(output.status == 2, "errors exit with status 2: \(output)", sourceLocation: sourceLocation)
    #expect(!output.terminatedBySignal, "\(output)", sourceLocation: sourceLocation)
    #expect(output.stdout.isEmpty, "\(output)", sourceLocation: sourceLocation)
    let lines = output.stderrLines
    #expect(lines.count == 1, "\(output)", sourceLocation: sourceLocation)
    #expect(lines.first?.hasPrefix("Error: ") == true, "\(output)", sourceLocation: sourceLocation)
    for fragment in fragments {
        #expect(
            output.stderr.contains(fragment), "missing '\(fragment)' in: \(output.stderr)",
            sourceLocation: sourceLocation)
    }
}
