import ArgumentParser
import Foundation
import Rewind

/// `rewind session-test SESSION… [--archive FILE…] [--import MODULE…] [--machine EXPR] [-o FILE]`:
/// recorded sessions written as a Swift Testing file that plays them on the app's machine — a
/// bug report becomes a regression test.
struct SessionTest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session-test",
        abstract:
            "Write a Swift Testing file that plays recorded sessions on the app's machine: a bug report becomes a regression test.",
        discussion: """
            One @Test per session: it plays the recorded events with their payloads on the machine \
            --machine gives and checks, after every version, the active configuration, the data the \
            step entered states with and the navigation stack; a failure names the session and the \
            version. The sessions come from the store (SESSION arguments), from session archives \
            (--archive FILE: rewind export, the viewer's bug report) or, with --server, from the \
            fleet server. Values are written as the store recorded them (redacted by its policy); \
            --redact replaces more (payload.card.*, data.*.email) and marks those versions: a \
            redacted version the machine does not reproduce is not re-checked, not a failure. \
            The file holds no paths. The sessions must be of one machine (one file per machine).
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var serverOptions: ServerOptions

    @Argument(help: "Sessions of the store (or, with --server, of the fleet server).")
    var sessions: [String] = []

    @Option(
        name: .customLong("archive"),
        help: ArgumentHelp(
            "A session archive to read a session from (rewind export, the viewer's bug report); repeat for several.",
            valueName: "file"))
    var archives: [String] = []

    @Option(
        name: .customLong("import"),
        help: ArgumentHelp(
            "A module the test file imports (the app's module that makes the machine); repeat for several. Default: RewindExamples for an example machine.",
            valueName: "module"))
    var imports: [String] = []

    @Option(
        help: ArgumentHelp(
            "The Swift expression giving the app's machine, e.g. 'try CheckoutFlow.machine()' (it may use try). Default: the example machine of that name.",
            valueName: "expression"))
    var machine: String?

    @Option(
        help: ArgumentHelp(
            "The name of the test suite (a struct). Default: Recorded<Machine>Sessions.", valueName: "name"))
    var suite: String?

    @Option(name: .shortAndLong, help: "The Swift file to write (default: standard output).")
    var output: String?

    @Option(
        parsing: .upToNextOption,
        help: "More JSON paths whose values are replaced by the marker (payload.card.*, data.*.email, context.token).")
    var redact: [String] = []

    /// The example machines' expressions, by machine name (the default of `--machine`).
    static let exampleExpressions = [
        "onboarding": "try ExampleMachines.Onboarding.machine()", "map": "try ExampleMachines.Map.machine()",
        "kanji": "try ExampleMachines.Kanji.machine()", "statekit": "try ExampleMachines.StateKit.machine()",
        "loading-view": "try ExampleMachines.LoadingView.machine()", "browser": "try ExampleMachines.Browser.machine()",
        "upload": "try ExampleMachines.Upload.machine()",
    ]

    func validate() throws {
        if sessions.isEmpty, archives.isEmpty {
            throw ValidationError("give one or more session ids, or --archive FILE")
        }
        if let machine, machine.contains(where: \.isNewline) {
            throw ValidationError("--machine takes a one-line Swift expression")
        }
        if let suite, SessionTestSourceName.isIdentifier(suite) == false {
            throw ValidationError("--suite must be a Swift identifier (letters, digits, _), not '\(suite)'")
        }
        for module in imports where !SessionTestSourceName.isIdentifier(module) {
            throw ValidationError("--import takes a module name (letters, digits, _), not '\(module)'")
        }
    }

    func run() async throws {
        let rules: [RedactionRule]
        do {
            rules = try redact.map { path throws(RedactionRuleError) in try RedactionRule(path) }
        } catch {
            throw CLIError.usage(error.description)
        }
        var recorded: [RecordedSession] = []
        if !sessions.isEmpty {
            if let connection = try serverOptions.connection(storeOptions) {
                for session in sessions {
                    recorded.append(
                        try SessionArchive.recordedSession(try await connection.archive(of: session), redacting: rules))
                }
            } else {
                let engine = try storeOptions.openEngine()
                defer { engine.close() }
                for session in sessions {
                    let info = try engine.existingSession(session)
                    recorded.append(try engine.replay().recordedSession(info.session, redacting: rules))
                }
            }
        }
        for file in archives {
            let data: Data
            do {
                data = try SessionArchive.read(from: URL(fileURLWithPath: file))
            } catch let error as SessionArchiveError {
                throw CLIError.unreadableFile(file, reason: error.description)
            } catch {
                throw CLIError.unreadableFile(file, reason: "it does not exist or is not readable")
            }
            do {
                recorded.append(try SessionArchive.recordedSession(data, redacting: rules))
            } catch let error as SessionArchiveError {
                throw CLIError.unreadableFile(file, reason: error.description)
            }
        }
        let machines = Set(recorded.map(\.machine))
        guard machines.count == 1, let name = machines.first else {
            throw CLIError.usage(
                "the sessions are of machines \(machines.sorted().joined(separator: ", ")): write one file per machine")
        }
        var modules = imports
        let expression: String
        if let machine {
            expression = machine
        } else if let example = Self.exampleExpressions[name] {
            expression = example
            if modules.isEmpty { modules = ["RewindExamples"] }
        } else {
            throw CLIError.usage(
                "machine '\(DisplayText.excerpt(name))' is not an example: give --machine EXPRESSION (the Swift expression "
                    + "that makes your app's machine, e.g. 'try CheckoutFlow.machine()') and --import MODULE (the module it is in)"
            )
        }
        let source = SessionTestSource(
            sessions: recorded, imports: modules, machineExpression: expression, suiteName: suite)
        let text = source.text
        guard let output else {
            print(text, terminator: "")
            return
        }
        try FileProblem.write(
            Data(text.utf8), to: output, hint: "give a file path such as Tests/AppTests/\(source.suiteName).swift")
        let versions = recorded.reduce(0) { $0 + $1.steps.count }
        print(
            "wrote \(output.shown): \(recorded.count) test\(recorded.count == 1 ? "" : "s") (\(versions) versions) in \(source.suiteName)"
        )
    }
}

/// Names the generated file may use.
enum SessionTestSourceName {
    /// Whether `text` is a plain Swift identifier: ASCII letters, digits and `_`, not starting with a digit.
    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_")
        }
    }
}
