import ArgumentParser
import Rewind

/// `rewind trim`: trim a long-lived session's history before a version, which becomes its base.
struct Trim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Trim a session's history: the state at a version becomes its base, older records go.",
        discussion: """
            The session's state at the version (--before, or the last --keep versions) is stored \
            as its base snapshot; its records, index entries and snapshots before it are removed in \
            one transaction, their sequences are recorded as erased (`rewind check` accepts them) \
            and a notice tells the fleet server. The session resumes exactly; history, replay, \
            diff, export, fork and verify begin at the base. --dry-run says what would be removed \
            and changes nothing.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The session to trim.")
    var session: String

    @Option(name: .long, help: "The version the session's history begins at afterwards.")
    var before: UInt64?

    @Option(name: .long, help: "Keep this many versions, up to the head (the base is the oldest of them).")
    var keep: UInt64?

    @Flag(name: .long, help: "Say what would be removed; change nothing.")
    var dryRun = false

    func validate() throws {
        guard (before == nil) != (keep == nil) else {
            throw ValidationError("name where the history begins afterwards: --before <version> or --keep <versions>")
        }
        if keep == 0 { throw ValidationError("--keep needs at least 1 version (the base itself)") }
    }

    func run() async throws {
        var info: SessionInfo?
        let engine = try storeOptions.openEngine(writing: !dryRun) { reader in
            info = try reader.existingSession(session)
        }
        defer { engine.close() }
        let head = try info ?? engine.existingSession(session)
        let base: UInt64
        if let keep {
            base = head.headVersion >= keep ? head.headVersion - keep + 1 : 1
        } else {
            base = try parseVersion(String(before ?? 0), head: head.headVersion)
        }
        if dryRun {
            guard base >= head.firstVersion || keep != nil else {
                throw ReplayError.historyTrimmed(
                    session: head.session, requested: base, firstVersion: head.firstVersion)
            }
            let first = max(base, head.firstVersion)
            if output.json {
                try Terminal.printJSON(
                    DryRun(session: head.session.rawValue, firstVersion: first, records: first - head.firstVersion))
            } else {
                print(
                    "would remove \(records(first - head.firstVersion)) of \(head.session.shown): its history would begin at "
                        + "version \(first)")
            }
            return
        }
        // --keep asks for at most that many versions: a session already shorter stays as it is.
        let report = try engine.trimHistory(of: head.session, before: keep != nil ? max(base, head.firstVersion) : base)
        if output.json {
            try Terminal.printJSON(report)
        } else if report.records == 0 {
            print("trimmed nothing: the history of \(head.session.shown) begins at version \(report.firstVersion)")
        } else {
            print(
                "removed \(records(UInt64(report.records))) of \(head.session.shown): its history begins at version "
                    + "\(report.firstVersion)")
            print("their bytes leave the data file at the next `rewind compact`")
        }
    }

    /// What `--dry-run --json` prints.
    struct DryRun: Encodable {
        var session: String
        var firstVersion: UInt64
        var records: UInt64
    }
}
