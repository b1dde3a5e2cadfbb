import ArgumentParser
import Rewind

/// `rewind sessions`: every session of the store with its machine, head version and current states.
struct Sessions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the sessions of the store with their machine, version and current states.",
        discussion: "Sessions are sorted by id, numbers counted (kanji-27 before kanji-102).")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Option(help: "Only the sessions of this machine.")
    var machine: String?

    @Option(help: "Show at most this many sessions (the first in order).")
    var limit: Int?

    struct Row: Encodable {
        var session: String
        var machine: String
        var version: UInt64
        var states: [String]
        var updated: String
        var origin: String?
    }

    func run() async throws {
        if let limit, limit < 1 { throw CLIError.conflictingOptions("--limit must be at least 1, not \(limit)") }
        let engine = try storeOptions.openEngine()
        defer { engine.close() }
        var total = 0
        var machines = Set<String>()
        let rows: [Row] = try engine.store.read { transaction in
            // The session entries first (small), then the head records of the shown ones only.
            var infos: [SessionInfo] = []
            try transaction.forEachSession { info in
                machines.insert(info.machine)
                if machine == nil || info.machine == machine { infos.append(info) }
                return .next
            }
            total = infos.count
            infos.sort { naturallyPrecedes($0.session.rawValue, $1.session.rawValue) }
            if let limit, infos.count > limit { infos.removeSubrange(limit...) }
            return try infos.map { info in
                let head = try transaction.record(at: info.headSequence)
                return Row(
                    session: info.session.rawValue, machine: info.machine, version: info.headVersion,
                    states: head?.target ?? [], updated: info.updated.description,
                    origin: info.origin?.description)
            }
        }
        if output.json {
            try Terminal.printJSON(rows)
            return
        }
        if rows.isEmpty {
            if let machine {
                print("no sessions of machine '\(machine)' in '\(storeOptions.store)'"
                    + (machines.isEmpty ? "" : " (its sessions run " + machines.sorted().joined(separator: ", ") + ")"))
            } else {
                print("no sessions in '\(storeOptions.store)'")
            }
            return
        }
        print(Terminal.table(
            ["SESSION", "MACHINE", "VERSION", "UPDATED", "STATES"],
            rows.map { [$0.session, $0.machine, String($0.version), $0.updated, $0.states.joined(separator: ", ")] }))
        if rows.count < total {
            print("(\(rows.count) of \(total) sessions; --limit N shows more)")
        }
    }
}
