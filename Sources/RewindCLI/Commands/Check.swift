import ArgumentParser
import Foundation
import Rewind

/// `rewind check`: walk the whole store and report the first inconsistency with its location.
struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Walk the whole store (records and checksums, sequence, sessions, index, snapshots, checkpoints).",
        discussion: """
            Reports the first problem with its location and exits with status 1, or prints a \
            one-line summary (status 0). Opens the store read-only, after checking every page of \
            its data file that LMDB could read (a damaged page is reported with its number).
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    struct Report: Encodable {
        var store: String
        var consistent: Bool
        var records: UInt64
        var sessions: Int
        var snapshots: Int
        var checkpoints: Int
        /// The global sequences erased (their records removed by `rewind erase` or retention).
        var erased: UInt64 = 0
        var location: String?
        var problem: String?
    }

    func run() async throws {
        let engine: Engine
        do {
            engine = try storeOptions.openEngine()
        } catch let damage as DamagedPageError {
            // The page check found a page LMDB cannot be trusted to read: that is this command's
            // finding, reported like any other problem.
            let location = "page \(damage.page) of '\(damage.path)' (database '\(damage.database)')"
            if output.json {
                try Terminal.printJSON(
                    Report(
                        store: storeOptions.store, consistent: false, records: 0, sessions: 0, snapshots: 0,
                        checkpoints: 0, location: location, problem: damage.reason))
            } else {
                print("problem at \(location): \(damage.reason)")
            }
            throw ExitCode(1)
        }
        defer { engine.close() }
        var bar: (stage: StoreCheckProgress.Stage, bar: ProgressBar)?
        let report = try engine.checkStore { progress in
            guard !output.json else { return }
            if bar?.stage != progress.stage {
                bar?.bar.finish()
                bar = (
                    progress.stage,
                    ProgressBar(title: "checking \(progress.stage.rawValue)", total: Int(clamping: progress.total))
                )
            }
            bar?.bar.update(Int(clamping: progress.done))
        }
        bar?.bar.finish()
        if output.json {
            try Terminal.printJSON(
                Report(
                    store: engine.store.path, consistent: report.isConsistent, records: report.records,
                    sessions: report.sessions, snapshots: report.snapshots, checkpoints: report.checkpoints,
                    erased: report.erased, location: report.problem?.location, problem: report.problem?.reason))
        } else if let problem = report.problem {
            print("problem at \(problem.location.shown): \(problem.reason.shown)")
        } else {
            let erased = report.erased > 0 ? ", \(report.erased) sequences erased" : ""
            print(
                "\(engine.store.path): consistent (\(report.records) records, \(report.sessions) sessions, "
                    + "\(report.snapshots) snapshots, \(report.checkpoints) checkpoints\(erased))")
        }
        if !report.isConsistent { throw ExitCode(1) }
    }
}
