import ArgumentParser
import Foundation
import Rewind

/// `rewind upgrade-check DEFINITION [--machine NAME] [--allow-divergence]`: what a new machine
/// definition does to every recorded session of its machine, before it ships.
struct UpgradeCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upgrade-check",
        abstract: "Check a new machine definition against every recorded session of its machine before it ships.",
        discussion: """
            For each session: whether it resumes under the new definition unchanged, after a \
            migration, or not at all (each missing or moved state named), and whether re-running \
            its recorded events through it reproduces every recorded version (else the first \
            divergence). Totals first, then the sessions by kind. With --server the fleet server \
            checks every device's sessions of the machine (the rows name their stores). The tool cannot run an app's \
            migrations (they are Swift code): run Engine.upgradeCheck in the app's tests for those. \
            Exit status: 0 every session resumes and reproduces its recording, 1 a session is \
            incompatible, could not be checked, or diverges (unless --allow-divergence), 2 an \
            error, 64 a usage error.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var serverOptions: ServerOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The new definition: a .json or .scxml file, or the name of a machine the tool knows.")
    var definition: String

    @Option(help: "The machine whose sessions to check (default: the definition's name).")
    var machine: String?

    @Flag(
        help:
            "Pass even when sessions diverge (they are still listed): for a release that changes behaviour on purpose.")
    var allowDivergence = false

    func run() async throws {
        var report: UpgradeCheckReport
        if let connection = try serverOptions.connection(storeOptions) {
            if connection.store != nil {
                throw CLIError.usage(
                    "upgrade-check --server checks every device store of the app: --store does not apply")
            }
            let (newMachine, label) = try Self.machine(definition, in: nil)
            report = try await connection.upgradeCheck(
                of: machine ?? newMachine.definition.name, against: newMachine.definition, label: label)
        } else {
            report = try checkLocally()
        }
        // By store, then in the order `sessions` lists them (kanji-12 before kanji-102), text and JSON alike.
        report.sessions.sort { a, b in
            a.store != b.store ? (a.store ?? "") < (b.store ?? "") : naturallyPrecedes(a.session, b.session)
        }
        if output.json {
            try Terminal.printJSON(report)
        } else {
            Self.printText(report)
        }
        if !report.passes(allowingDivergence: allowDivergence) { throw ExitCode(1) }
    }

    /// The check of the local store's sessions.
    private func checkLocally() throws -> UpgradeCheckReport {
        let engine = try storeOptions.openEngine()
        defer { engine.close() }
        let (newMachine, label) = try Self.machine(definition, in: engine)
        let name = machine ?? newMachine.definition.name
        let total = try engine.sessions().count { $0.machine == name }
        if total == 0 {
            FileHandle.standardError.write(
                Data(
                    ("no session of machine '\(name)' in the store (its machines: "
                        + ExampleCatalog.knownMachineNames(in: engine).joined(separator: ", ")
                        + "); --machine NAME checks the sessions of another name\n").shown.utf8))
        }
        // On a terminal a bar; piped, a line now and then (a long run is not silent).
        let progress = output.json || total == 0 ? nil : ProgressBar(title: "checking", total: total, unit: "sessions")
        let report = try engine.upgradeCheck(of: name, against: newMachine, label: label) { checked, _ in
            progress?.update(checked)
        }
        progress?.finish()
        return report
    }

    /// The machine `argument` names and what the report calls it: a definition file (its file
    /// name), or a machine registered with `engine` or an example (its name).
    ///
    /// - Throws: ``CLIError/unreadableFile(_:reason:)`` for a file that is missing or does not
    ///   parse, ``CLIError/invalidDefinition(_:problems:)`` for one that is not a valid machine,
    ///   ``CLIError/unknownMachine(_:known:)`` for a name the tool does not know.
    static func machine(_ argument: String, in engine: Engine?) throws -> (Machine, label: String) {
        guard Graph.isDefinitionFile(argument) else {
            guard let registered = try engine?.machine(named: argument) ?? ExampleCatalog.machines()[argument] else {
                throw CLIError.unknownMachine(argument, known: ExampleCatalog.knownMachineNames(in: engine))
            }
            return (registered, argument)
        }
        let parsed: MachineDefinition?
        do {
            parsed = try Graph.definition(fromFile: argument)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.unreadableFile(argument, reason: "it is not a machine definition: \(error)")
        }
        guard let parsed else {
            throw CLIError.unreadableFile(argument, reason: "give a .json or .scxml machine definition")
        }
        return (try Graph.machine(of: parsed, from: argument), URL(fileURLWithPath: argument).lastPathComponent)
    }

    /// The kinds the text lists session by session, in order, with their headings (unchanged
    /// sessions are only counted).
    static let listedKinds: [(UpgradeCheckReport.Kind, String)] = [
        (.incompatible, "incompatible"), (.migrationFailed, "migration failed"), (.unreadable, "unreadable"),
        (.diverging, "diverging"), (.migrated, "migrated"),
    ]

    /// The totals line, then each kind's sessions, then the verdict.
    static func printText(_ report: UpgradeCheckReport) {
        print(report.description.shown)
        for (kind, heading) in listedKinds {
            let rows = report.sessions.filter { $0.kind == kind }
            let unlisted = report.unlisted?[kind] ?? 0
            guard !rows.isEmpty || unlisted > 0 else { continue }
            print("\(heading) (\(rows.count + unlisted)):")
            for row in rows {
                print("  \(row.session.shown)\(row.store.map { " (store \($0.shown))" } ?? ""): \(row.detail.shown)")
            }
            if unlisted > 0 { print("  … and \(unlisted) more") }
        }
        let fails = [
            report.incompatible > 0 ? "\(report.incompatible) incompatible" : nil,
            report.migrationFailed > 0 ? "\(report.migrationFailed) migration failed" : nil,
            report.unreadable > 0 ? "\(report.unreadable) unreadable" : nil,
            report.diverging > 0 ? "\(report.diverging) diverge" : nil,
        ].compactMap { $0 }
        print(
            fails.isEmpty
                ? "passes: every session resumes and reproduces its recording"
                : "does not pass: " + fails.joined(separator: ", "))
    }
}
