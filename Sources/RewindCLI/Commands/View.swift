import ArgumentParser
import Foundation
import Rewind
import RewindViewer

/// `rewind view SESSION [-o FILE.html] [--verify [--definition FILE]] [--redact PATH …] [--open]`
/// and `rewind view --machine NAME [--upgrade-check DEFINITION]`: a session (or a machine's sessions) as one self-contained
/// HTML page.
struct View: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Write a session (or, with --machine, a machine's funnel and sessions) as one self-contained HTML page.",
        discussion: """
            The page works offline from disk: timeline, statechart, navigation stack, data and diffs \
            at any version; it embeds the session's archive (for rewind import). --redact replaces \
            values at JSON paths (payload.card.*, data.*.email, context.token) in the page and the \
            embedded archive; a path that matches no value is an error (nothing is written) unless \
            --allow-unmatched-redactions is given.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var serverOptions: ServerOptions

    @Argument(help: "The session id (omit with --machine).")
    var session: String?

    @Option(help: "A machine name: write its funnel and all its sessions instead of one session.")
    var machine: String?

    @Option(
        name: .shortAndLong,
        help: "The HTML file to write (default: SESSION.html or MACHINE.html in the current directory).")
    var output: String?

    @Option(
        name: .customLong("upgrade-check"),
        help:
            "With --machine: a new definition (.json or .scxml file, or a machine name) whose upgrade check of the machine's sessions the page shows above the funnel (as rewind upgrade-check reports it)."
    )
    var upgradeDefinition: String?

    @Flag(help: "Verify the session against the registered machine (or --definition) and mark its first divergence.")
    var verify = false

    @Option(help: "With --verify: a machine definition file (.json or .scxml) to verify against.")
    var definition: String?

    @Option(
        parsing: .upToNextOption,
        help: "JSON paths whose values are replaced by a placeholder (payload.card.*, data.*.email).")
    var redact: [String] = []

    @Flag(
        help:
            "Write the page even when a --redact path matches no value (by default that is an error: a mistyped path would leave the values it meant to hide in the page)."
    )
    var allowUnmatchedRedactions = false

    @Flag(help: "Open the page in the default browser afterwards, where there is one.")
    var open = false

    func validate() throws {
        if session == nil, machine == nil { throw ValidationError("give a session id, or --machine NAME") }
        if session != nil, machine != nil { throw ValidationError("give a session id or --machine NAME, not both") }
        if definition != nil, !verify { throw ValidationError("--definition goes with --verify") }
        if machine != nil, verify { throw ValidationError("--verify works on one session, not with --machine") }
        if machine == nil, upgradeDefinition != nil {
            throw ValidationError("--upgrade-check goes with --machine NAME")
        }
    }

    func run() async throws {
        let redaction: Redaction
        do {
            redaction = try Redaction(paths: redact)
        } catch {
            throw CLIError.usage(error.description)
        }
        // With --server: the page as the server renders it from its copy of the session's log.
        if let connection = try serverOptions.connection(storeOptions) {
            guard let session else {
                throw CLIError.usage("view --machine reads a local store; with --server give a session id")
            }
            if verify {
                throw CLIError.usage(
                    "view --verify reads a local store; export the session from the server and verify it locally")
            }
            try write(try await connection.page(of: session, redacting: redact), named: session)
            return
        }
        let engine = try storeOptions.openEngine()
        defer { engine.close() }
        let page: Data
        let name: String
        if let machine {
            guard try engine.sessions().contains(where: { $0.machine == machine }) else {
                throw CLIError.unknownMachine(machine, known: ExampleCatalog.knownMachineNames(in: engine))
            }
            var machinePage = MachinePage(engine: engine, machine: machine, redacting: redaction)
            machinePage.requiresEveryRedactionToMatch = !allowUnmatchedRedactions
            if let upgradeDefinition {
                let (newMachine, label) = try UpgradeCheck.machine(upgradeDefinition, in: engine)
                machinePage.upgradeCheck = try engine.upgradeCheck(of: machine, against: newMachine, label: label)
            }
            page = try machinePage.html()
            name = machine
        } else {
            let info = try engine.existingSession(session ?? "")
            var against: Machine?
            if verify {
                if let definition {
                    guard let parsed = try Graph.definition(fromFile: definition) else {
                        throw CLIError.unreadableFile(definition, reason: "give a .json or .scxml machine definition")
                    }
                    against = try Graph.machine(of: parsed, from: definition)
                } else {
                    guard let registered = engine.machine(named: info.machine) else {
                        throw CLIError.unknownMachine(info.machine, known: ExampleCatalog.knownMachineNames(in: engine))
                    }
                    against = registered
                }
            }
            var sessionPage = SessionPage(
                engine: engine, session: info.session, redacting: redaction, verifyingAgainst: against)
            sessionPage.requiresEveryRedactionToMatch = !allowUnmatchedRedactions
            page = try sessionPage.html()
            name = info.session.rawValue
        }
        try write(page, named: name)
    }

    /// Writes `page` to `--output` (or NAME.html), says where, and opens it with `--open`.
    private func write(_ page: Data, named name: String) throws {
        let path = output ?? View.fileName(for: name)
        try FileProblem.write(
            page, to: path,
            hint: "give a file path such as \(path.hasSuffix("/") ? path : path + "/")\(View.fileName(for: name))")
        print("wrote \(path.shown) (\(ByteCountFormatter.string(fromByteCount: Int64(page.count), countStyle: .file)))")
        if open { View.openInBrowser(path) }
    }

    /// `name.html` (or another `extension`), with characters a file name cannot hold (and control
    /// characters) replaced by `_`.
    static func fileName(for name: String, extension: String = "html") -> String {
        String(
            name.unicodeScalars.map {
                "/\\:".unicodeScalars.contains($0) || DisplayText.isControl($0) ? "_" : Character($0)
            })
            + "." + `extension`
    }

    /// Opens `path` with the system's opener (`open` on macOS, `xdg-open` elsewhere) when there is
    /// one; says so when there is none.
    static func openInBrowser(_ path: String) {
        #if os(macOS)
            let opener = "open"
        #else
            let opener = "xdg-open"
        #endif
        let pathList = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard
            let directory = pathList.split(separator: ":").first(where: {
                FileManager.default.isExecutableFile(atPath: "\($0)/\(opener)")
            })
        else {
            FileHandle.standardError.write(Data("no browser opener (\(opener)) found; open \(path) by hand\n".utf8))
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "\(directory)/\(opener)")
        process.arguments = [path]
        do {
            try process.run()
        } catch {
            FileHandle.standardError.write(Data("could not run \(opener): \(error)\n".utf8))
        }
    }
}
