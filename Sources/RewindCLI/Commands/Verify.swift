import ArgumentParser
import Foundation
import Rewind
import RewindWire

/// `rewind verify [SESSION] [--definition FILE]`: re-run recorded sessions through a machine
/// definition and report the first divergence of each.
struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Re-run recorded sessions through the current (or a given) machine definition and report divergences.",
        discussion: "Exits with status 1 when a session diverges.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "One session to verify (default: every session).")
    var session: String?

    @Option(help: "A machine definition file (.json or .scxml) to verify against, instead of the registered machine.")
    var definition: String?

    /// A session's row and the whole report: the Rewind module's ``VerificationSummary`` (the
    /// server's `…/verify` answers the same).
    typealias Row = VerificationSummary.Row
    typealias Report = VerificationSummary

    func run() async throws {
        let engine = try storeOptions.openEngine()
        defer { engine.close() }
        let override = try definition.map { path -> Machine in
            guard let definition = try Graph.definition(fromFile: path) else {
                throw CLIError.unreadableFile(path, reason: "give a .json or .scxml machine definition")
            }
            return try Graph.machine(of: definition, from: path)
        }
        var targets: [SessionInfo]
        if let session {
            targets = [try engine.existingSession(session)]
        } else {
            targets = try engine.sessions()
            if let override { targets = targets.filter { $0.machine == override.definition.name } }
            // In the order `sessions` lists them (kanji-12 before kanji-102), text and JSON alike.
            targets.sortNaturally()
        }
        // On a terminal a bar; piped, a line now and then (a long run is not silent).
        let progress = output.json ? nil : ProgressBar(title: "verifying", total: targets.count, unit: "sessions")
        var rows: [Row] = []
        for (index, info) in targets.enumerated() {
            guard let machine = override ?? engine.machine(named: info.machine) else {
                throw CLIError.unknownMachine(info.machine, known: ExampleCatalog.knownMachineNames(in: engine))
            }
            let report = try engine.verify(info.session, against: machine)
            rows.append(Row(report, machine: info.machine))
            progress?.update(index + 1)
        }
        progress?.finish()
        let diverged = rows.filter { $0.divergence != nil }
        let summary = Report(rows)
        if output.json {
            try Terminal.printJSON(summary)
        } else {
            for row in diverged {
                print("\(row.session.shown) (\(row.machine.shown)): \((row.divergence ?? "").shown)")
            }
            for row in rows where row.divergence == nil {
                guard let versions = row.redacted else { continue }
                print(
                    "\(row.session.shown) (\(row.machine.shown)): version\(versions.count == 1 ? "" : "s") "
                        + "\(versions.map(String.init).joined(separator: ", ")): redacted: cannot be re-checked")
            }
            print(
                "verified \(rows.count) session\(rows.count == 1 ? "" : "s"), "
                    + "\(records(summary.verifiedRecords)): \(diverged.count) diverged")
        }
        if !diverged.isEmpty { throw ExitCode(1) }
    }
}
