import ArgumentParser
import Foundation
import Rewind

/// `rewind`: the demo, inspection and time travel of Rewind stores in a terminal.
@main
struct RewindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewind",
        abstract: "Durable, replayable screen flows: run the demo, inspect sessions, travel in time.",
        discussion: """
            Every command but view and session-test (which write a file) takes --json for machine-readable \
            output, and every one but bench (which \
            runs on a temporary store) takes --store PATH (default: ./\(StoreOptions.defaultDirectory), \
            the demo store). Commands that only read open the store read-only: they create and change \
            nothing, and work on read-only media. Exit status: 0 success, 1 `verify` found a \
            divergence, `check` a problem or `upgrade-check` a session the new definition fails, 2 an error (one line on standard error), 64 a usage \
            error (options that do not go together, a value out of range).
            """,
        version: RewindCommand.version,
        subcommands: [
            Demo.self, Sessions.self, History.self, State.self, Diff.self, Replay.self, Verify.self,
            View.self, Export.self, Import.self, Fork.self, Graph.self, Projections.self, Stats.self, Check.self,
            Compact.self,
            Bench.self, Push.self, Erase.self, Trim.self, UpgradeCheck.self, SessionTest.self,
        ]
    )

    /// What `rewind --version` prints: the tool's version and the formats it reads and writes.
    static let version =
        "rewind 0.1.0 (store format \(StoreLayout.formatVersion), session archive format \(SessionArchive.formatVersion))"

    /// Runs the command; errors of the store, the engine and the tool itself exit with status 2
    /// after one `Error: …` line, so scripts can tell them from `verify`'s divergence (status 1);
    /// the tool's usage errors exit with 64 after one line. The line is shown escaped
    /// (``Swift/String/shown``): a name or value an error quotes cannot act on the terminal or
    /// break the line.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as ExitCode {
            exit(withError: error)
        } catch let error as CLIError {
            FileHandle.standardError.write(Data((fullMessage(for: error).shown + "\n").utf8))
            exit(withError: ExitCode(error.exitStatus))
        } catch {
            // Help, usage and validation errors keep ArgumentParser's handling; the rest are
            // Rewind's errors, reported in one line with status 2.
            guard exitCode(for: error) == .failure else { exit(withError: error) }
            // A file-system error Foundation threw: said in the tool's words, not as an NSError.
            let message = FileProblem.message(for: error).map { "Error: " + $0 } ?? fullMessage(for: error)
            FileHandle.standardError.write(Data((message.shown + "\n").utf8))
            exit(withError: ExitCode(2))
        }
    }
}
