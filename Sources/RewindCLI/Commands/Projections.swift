import ArgumentParser
import Rewind

/// `rewind projections [list|rebuild NAME]`: the store's read models.
struct Projections: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the projections (checkpoint, version, failure) or rebuild one from scratch.",
        subcommands: [List.self, Rebuild.self],
        defaultSubcommand: List.self)

    /// A projection's row, in text and in `--json` alike.
    struct Row: Encodable {
        var name: String
        var version: UInt32
        var checkpoint: UInt64
        var head: UInt64
        /// What the STATUS column says: `up to date`, `behind by N records`, or the failure.
        var status: String
        var failure: String?
        /// How long `rebuild` took, in seconds (absent in `list`).
        var seconds: Double?
    }

    static func row(_ status: ProjectionStatus, head: UInt64) -> Row {
        let failure = status.failure.map { "stopped before sequence \($0.sequence) (\($0.session)): \($0.reason)" }
        let behind = head > status.checkpoint ? head - status.checkpoint : 0
        return Row(
            name: status.name, version: status.version, checkpoint: status.checkpoint, head: head,
            status: failure ?? (behind == 0 ? "up to date" : "behind by \(records(behind))"), failure: failure)
    }

    static func print(_ rows: [Row]) {
        Swift.print(
            Terminal.table(
                ["PROJECTION", "VERSION", "CHECKPOINT", "HEAD", "STATUS"],
                rows.map { [$0.name, String($0.version), String($0.checkpoint), String($0.head), $0.status] }))
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the projections and their checkpoints.")

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let engine = try storeOptions.openEngine()
            defer { engine.close() }
            let head = try engine.store.headSequence()
            let rows = try engine.registeredProjections.compactMap { name in
                try engine.projectionStatus(named: name).map { Projections.row($0, head: head) }
            }
            if output.json { try Terminal.printJSON(rows) } else { Projections.print(rows) }
        }
    }

    struct Rebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild a projection from the first record, with progress.")

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "The projection's name (see `rewind projections list`).")
        var name: String

        func run() async throws {
            let engine = try storeOptions.openEngine(writing: true) { reader in
                guard reader.registeredProjections.contains(name) else {
                    throw CLIError.unknownProjection(name, known: reader.registeredProjections)
                }
            }
            defer { engine.close() }
            let head = try engine.store.headSequence()
            guard engine.registeredProjections.contains(name) else {
                throw CLIError.unknownProjection(name, known: engine.registeredProjections)
            }
            let bar = output.json ? nil : ProgressBar(title: "rebuilding \(name)", total: Int(clamping: head))
            let started = ContinuousClock.now
            let status = try engine.rebuildProjection(named: name) { progress in
                bar?.update(Int(clamping: progress.recordsDone))
            }
            bar?.finish()
            let seconds = (ContinuousClock.now - started).seconds
            if output.json {
                var row = Projections.row(status, head: head)
                row.seconds = seconds
                try Terminal.printJSON(row)
            } else {
                Swift.print(
                    "rebuilt \(name) over \(status.checkpoint) records in "
                        + "\(String(format: "%.2f", seconds)) s (\(Int(Double(status.checkpoint) / max(seconds, 1e-9))) records/s)"
                )
            }
        }
    }
}
