import ArgumentParser
import Rewind

/// `rewind sessions`: every session of the store with its machine, head version and current states.
struct Sessions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the sessions of the store with their machine, version and current states.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Option(help: "Only the sessions of this machine.")
    var machine: String?

    struct Row: Encodable {
        var session: String
        var machine: String
        var version: UInt64
        var states: [String]
        var updated: String
        var origin: String?
    }

    func run() async throws {
        let engine = try storeOptions.openEngine()
        defer { engine.close() }
        let rows: [Row] = try engine.store.read { transaction in
            var rows: [Row] = []
            try transaction.forEachSession { info in
                if let machine, info.machine != machine { return .next }
                let head = try transaction.record(at: info.headSequence)
                rows.append(Row(
                    session: info.session.rawValue, machine: info.machine, version: info.headVersion,
                    states: head?.target ?? [], updated: info.updated.description,
                    origin: info.origin?.description))
                return .next
            }
            return rows
        }
        if output.json {
            try Terminal.printJSON(rows)
            return
        }
        if rows.isEmpty {
            print("no sessions in '\(storeOptions.store)'")
            return
        }
        print(Terminal.table(
            ["SESSION", "MACHINE", "VERSION", "UPDATED", "STATES"],
            rows.map { [$0.session, $0.machine, String($0.version), $0.updated, $0.states.joined(separator: ", ")] }))
    }
}
