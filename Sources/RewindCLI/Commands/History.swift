import ArgumentParser
import Rewind

/// `rewind history SESSION`: every version of a session with time, event, source → target,
/// navigation operations and the navigation stack after it (entries with their data, rebuilt from
/// the records as the navigation projection does).
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a session's versions: time, event, source → target, navigation and the stack after it.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The session id.")
    var session: String

    @Option(help: "Only versions with this event.")
    var event: String?

    @Option(help: "Only versions entering or leaving this state.")
    var state: String?

    struct Row: Encodable {
        var version: UInt64
        var sequence: UInt64
        var time: String
        var event: String
        var source: [String]
        var target: [String]
        var navigation: [String]
        /// The navigation stack after the version, root first.
        var stack: [NavigationEntry]
    }

    func run() async throws {
        let engine = try storeOptions.openEngine()
        defer { engine.close() }
        let info = try engine.existingSession(session)
        var rows: [Row] = []
        var stack = NavigationStack()
        let coder = engine.store.coder
        try engine.store.read { transaction in
            try transaction.forEachRecord(of: info.session) { record in
                // Every record moves the stack, shown or not.
                try stack.apply(record, coder: coder)
                if let event, record.event != event { return .next }
                if let state, !record.source.contains(state), !record.target.contains(state) { return .next }
                rows.append(Row(
                    version: record.version, sequence: record.sequence, time: record.timestamp.description,
                    event: record.event, source: record.source, target: record.target,
                    navigation: record.navigation.map(\.description), stack: stack.entries))
                return .next
            }
        }
        if output.json {
            try Terminal.printJSON(rows)
            return
        }
        let dot = Glyphs.current.dot
        print("session \(info.session) \(dot) machine \(info.machine) \(dot) \(info.headVersion) versions")
        print(Terminal.table(
            ["VERSION", "TIME", "EVENT", "TRANSITION", "NAVIGATION", "STACK"],
            rows.map { row in
                let source = row.source.isEmpty ? "∅" : row.source.joined(separator: ",")
                return [String(row.version), row.time, row.event,
                        "\(source) \(Glyphs.current.arrow) \(row.target.joined(separator: ","))",
                        row.navigation.isEmpty ? "-" : row.navigation.joined(separator: " "),
                        row.stack.isEmpty ? "-" : row.stack.stackText]
            }))
    }
}
