import ArgumentParser
import Foundation
import Rewind
import RewindViewer

/// `rewind graph MACHINE|FILE`: a machine's diagram as SVG (laid out by Rewind), Graphviz DOT,
/// Mermaid or SCXML.
struct Graph: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a machine (of the store, an example, or a .json/.scxml file) as SVG, DOT, Mermaid or SCXML.")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case svg, dot, mermaid, scxml, json
    }

    @OptionGroup var storeOptions: StoreOptions
    /// `--json` is `--format json`.
    @OptionGroup var output: OutputOptions

    @Argument(help: "A machine name (of the store or an example) or a .json / .scxml file.")
    var machine: String

    @Option(help: "svg (drawn by Rewind), dot, mermaid, scxml or json (default: mermaid).")
    var format: Format?

    @Option(help: "Highlight the states active in this session (at its head, or at --at).")
    var session: String?

    @Option(parsing: .unconditional, help: "With --session: the version whose active states are highlighted.")
    var at: String?

    /// Refuses options that would be ignored: `--at` without `--session`, `--session` on a
    /// definition file (it belongs to no store), and `--json` with another `--format`.
    func refuseInapplicableOptions() throws {
        if at != nil, session == nil {
            throw CLIError.usage("--at needs --session: it is the version of that session whose states are highlighted")
        }
        if session != nil, Self.isDefinitionFile(machine) {
            throw CLIError.usage(
                "--session cannot apply to a definition file ('\(machine)'): name the session's machine instead")
        }
        if output.json, let format, format != .json {
            throw CLIError.usage("--json conflicts with --format \(format.rawValue): give one of them")
        }
    }

    /// Whether `path` names a .json or .scxml definition file rather than a machine.
    static func isDefinitionFile(_ path: String) -> Bool {
        let lowered = path.lowercased()
        return lowered.hasSuffix(".json") || lowered.hasSuffix(".scxml")
    }

    func run() async throws {
        try refuseInapplicableOptions()
        var highlighted: Set<String> = []
        let definition: MachineDefinition
        if let fromFile = try Self.definition(fromFile: machine) {
            definition = try Self.validated(fromFile, from: machine)
        } else if session == nil, storeOptions.namesNoStore, let example = try ExampleCatalog.machines()[machine] {
            // No store to look in (a missing or empty directory): the examples are drawn all the same.
            definition = example.definition
        } else {
            let engine = try storeOptions.openEngine()
            defer { engine.close() }
            definition = try Self.definition(named: machine, in: engine)
            if let session {
                let info = try engine.existingSession(session)
                let version = try at.map { try parseVersion($0, head: info.headVersion) } ?? info.headVersion
                let record = try engine.store.read { try $0.records(of: info.session, from: version, limit: 1).first }
                highlighted = Set(record?.target ?? [])
            }
        }
        switch output.json ? .json : format ?? .mermaid {
        case .svg: print(StatechartDiagram(definition).svg(active: highlighted), terminator: "")
        case .dot: print(definition.dotDiagram(highlighting: highlighted), terminator: "")
        case .mermaid: print(definition.mermaidDiagram(highlighting: highlighted), terminator: "")
        case .scxml: print(definition.scxml(), terminator: "")
        case .json: print(String(decoding: definition.jsonDocument(), as: UTF8.self))
        }
    }

    /// The definition in `path` when it names a .json or .scxml file.
    static func definition(fromFile path: String) throws -> MachineDefinition? {
        guard isDefinitionFile(path) else { return nil }
        let lowered = path.lowercased()
        let url = URL(fileURLWithPath: path)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CLIError.unreadableFile(path, reason: "it does not exist or is not readable")
        }
        if lowered.hasSuffix(".json") { return try MachineDefinition(jsonDocument: data) }
        return try MachineDefinition(scxml: data, name: url.deletingPathExtension().lastPathComponent)
    }

    /// The machine of `definition`, read from `path`.
    ///
    /// - Throws: ``CLIError/invalidDefinition(_:problems:)`` listing every problem (an unknown
    ///   target, a duplicate id, a history that loops), on one line.
    static func machine(of definition: MachineDefinition, from path: String) throws -> Machine {
        do {
            return try Machine(definition)
        } catch MachineError.invalidDefinition(let errors) {
            throw CLIError.invalidDefinition(path, problems: errors.map(\.description))
        }
    }

    /// `definition` read from `path`, when it is a machine: an invalid one is refused with its
    /// problems rather than drawn wrong. Custom actions need the app's code to run, not to be
    /// drawn: their missing bindings are not problems here.
    ///
    /// - Throws: ``CLIError/invalidDefinition(_:problems:)`` with the definition's other problems.
    static func validated(_ definition: MachineDefinition, from path: String) throws -> MachineDefinition {
        do {
            _ = try Machine(definition)
        } catch MachineError.invalidDefinition(let errors) {
            let problems = errors.filter { error in
                if case .unboundAction = error.problem { return false } else { return true }
            }
            if !problems.isEmpty { throw CLIError.invalidDefinition(path, problems: problems.map(\.description)) }
        }
        return definition
    }

    /// The definition of the machine called `name`: the newest stored in the store, else the example.
    static func definition(named name: String, in engine: Engine) throws -> MachineDefinition {
        if let registered = engine.machine(named: name) { return registered.definition }
        throw CLIError.unknownMachine(name, known: ExampleCatalog.knownMachineNames(in: engine))
    }
}
