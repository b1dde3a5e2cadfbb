import ArgumentParser
import Foundation
import Rewind
import RewindWire

/// `rewind history SESSION`: every version of a session with time, event, source → target,
/// navigation operations and the navigation stack after it (entries with their data, rebuilt from
/// the records as the navigation projection does).
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a session's versions: time, event, source -> target, navigation and the stack after it.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var serverOptions: ServerOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The session id.")
    var session: String

    @Option(help: "Only versions with this event.")
    var event: String?

    @Option(help: "Only versions entering or leaving this state.")
    var state: String?

    /// How many rows the CLI asks the server for at once.
    static let pageSize = 1_000

    /// A row: RewindWire's `HistoryRow` (the server answers the same).
    typealias Row = HistoryRow

    func run() async throws {
        let listing: SessionListing
        let rows: [Row]
        if let connection = try serverOptions.connection(storeOptions) {
            let (store, found) = try await connection.session(session)
            listing = found
            var query: [URLQueryItem] = []
            if let event { query.append(URLQueryItem(name: "events", value: event)) }
            if let state { query.append(URLQueryItem(name: "states", value: state)) }
            // The server answers pages of up to `pageSize` rows; the next begins after the last row.
            var all: [Row] = []
            while true {
                let page = try await connection.get(
                    [Row].self, connection.sessionPath(session, store: store) + ["history"],
                    query: query + [
                        URLQueryItem(name: "limit", value: String(Self.pageSize)),
                        URLQueryItem(name: "from", value: String((all.last?.version ?? 0) + 1)),
                    ])
                all += page
                guard page.count == Self.pageSize, let last = page.last, last.version < listing.version else { break }
            }
            rows = all
        } else {
            let engine = try storeOptions.openEngine()
            defer { engine.close() }
            let info = try engine.existingSession(session)
            listing = SessionListing(info, head: nil)
            let filter = HistoryFilter(events: event.map { [$0] }, states: state.map { [$0] })
            let coder = engine.store.coder
            rows = try engine.store.read { try HistoryRow.rows(of: info.session, in: $0, filter: filter, coder: coder) }
        }
        if output.json {
            try Terminal.printJSON(rows)
            return
        }
        let dot = Glyphs.current.dot
        print(
            "session \(listing.session.shown) \(dot) machine \(listing.machine.shown) \(dot) \(listing.version) versions"
        )
        if let first = listing.historyBeginsAt {
            print("history begins at version \(first) (older history was trimmed)")
        }
        print(
            Terminal.table(
                ["VERSION", "TIME", "EVENT", "TRANSITION", "NAVIGATION", "STACK"],
                rows.map { row in
                    let source = row.source.isEmpty ? Glyphs.current.emptySet : row.source.joined(separator: ",")
                    return [
                        String(row.version), row.time, row.event,
                        "\(source) \(Glyphs.current.arrow) \(row.target.joined(separator: ","))",
                        row.navigation.isEmpty ? "-" : row.navigation.joined(separator: " "),
                        row.stack.isEmpty ? "-" : row.stack.stackText,
                    ]
                }))
    }
}
