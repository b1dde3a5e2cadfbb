import ArgumentParser
import Foundation
import Rewind
import RewindWire

/// `rewind sessions`: every session of the store with its machine, head version and current states.
struct Sessions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the sessions of the store with their machine, version and current states.",
        discussion: """
            Sessions are sorted by id, numbers counted (kanji-27 before kanji-102). --json prints \
            {"sessions": [...], "total": N}: the rows shown and how many sessions matched before \
            --limit. With --server, the sessions of the device store --store names (by its id), or \
            without --store those of every device store of the app (an array of rows: every page \
            the server has, or the first --limit).
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var serverOptions: ServerOptions
    @OptionGroup var output: OutputOptions

    @Option(help: "Only the sessions of this machine.")
    var machine: String?

    @Option(help: "Show at most this many sessions (the first in order).")
    var limit: Int?

    /// A row of the listing: the Rewind module's ``SessionListing`` (the server answers the same).
    typealias Row = SessionListing

    /// What `--json` prints: the rows shown, and how many sessions matched (`--machine`) before
    /// `--limit` cut the list, as the text's "(4 of 30 sessions)" line says.
    struct Listing: Encodable {
        var sessions: [Row]
        var total: Int
    }

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, not \(limit)") }
    }

    func run() async throws {
        var machines = Set<String>()
        var total = 0
        let rows: [Row]
        if let connection = try serverOptions.connection(storeOptions) {
            guard let store = connection.store else {
                try await listFleet(connection)
                return
            }
            var listed = try await connection.storeSessions(store)
            machines = Set(listed.map(\.machine))
            listed = listed.filter { machine == nil || $0.machine == machine }
            listed.sort { naturallyPrecedes($0.session, $1.session) }
            total = listed.count
            if let limit, listed.count > limit { listed.removeSubrange(limit...) }
            rows = listed
        } else {
            let engine = try storeOptions.openEngine()
            defer { engine.close() }
            rows = try engine.store.read { transaction in
                // The session entries first (small), then the head records of the shown ones only.
                var infos: [SessionInfo] = []
                try transaction.forEachSession { info in
                    machines.insert(info.machine)
                    if machine == nil || info.machine == machine { infos.append(info) }
                    return .next
                }
                total = infos.count
                infos.sortNaturally()
                if let limit, infos.count > limit { infos.removeSubrange(limit...) }
                return try infos.map { SessionListing($0, head: try transaction.record(at: $0.headSequence)) }
            }
        }
        if output.json {
            try Terminal.printJSON(Listing(sessions: rows, total: total))
            return
        }
        if rows.isEmpty {
            if let machine {
                print(
                    "no sessions of machine '\(machine.shown)' in '\(storeOptions.store.shown)'"
                        + (machines.isEmpty
                            ? "" : " (its sessions run " + machines.sorted().joined(separator: ", ").shown + ")"))
            } else {
                print("no sessions in '\(storeOptions.store.shown)'")
            }
            return
        }
        print(
            Terminal.table(
                ["SESSION", "MACHINE", "VERSION", "UPDATED", "STATES"],
                rows.map {
                    [$0.session, $0.machine, String($0.version), $0.updated, $0.states.joined(separator: ", ")]
                }))
        if rows.count < total {
            print("(\(rows.count) of \(total) sessions; --limit N shows more)")
        }
    }

    /// A session of the fleet listing (`--server` without `--store`): which device store it is in.
    struct FleetRow: Encodable {
        var store: String
        var session: String
        var machine: String
        var version: UInt64
        var updated: String
    }

    /// Lists the sessions of every device store of the app (`GET /v1/sessions`).
    private func listFleet(_ connection: ServerConnection) async throws {
        // Every page, or the first `--limit` sessions.
        let (sessions, more) = try await connection.fleetSessions(
            machine.map { [URLQueryItem(name: "machine", value: $0)] } ?? [], limit: limit ?? .max)
        let rows = sessions.map {
            FleetRow(
                store: $0.storeID.uuidString.lowercased(), session: $0.sessionID, machine: $0.machine,
                version: UInt64(clamping: $0.headVersion),
                updated: Timestamp(microsecondsSince1970: $0.lastRecordedAtMicroseconds).description)
        }
        if output.json {
            try Terminal.printJSON(rows)
            return
        }
        if rows.isEmpty {
            print(
                machine.map { "no sessions of machine '\($0.shown)' on \(connection.base.absoluteString)" }
                    ?? "no sessions on \(connection.base.absoluteString)")
            return
        }
        print(
            Terminal.table(
                ["STORE", "SESSION", "MACHINE", "VERSION", "UPDATED"],
                rows.map { [$0.store, $0.session, $0.machine, String($0.version), $0.updated] }))
        if more { print("(the first \(rows.count) sessions; the server has more: a larger --limit shows them)") }
    }
}
