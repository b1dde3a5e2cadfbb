import ArgumentParser
import Foundation
import Rewind

/// `rewind state SESSION [--at VERSION]`: a session at its head or at any version.
struct State: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Show a session's configuration, state data, context and navigation stack (at its head or --at a version).")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var serverOptions: ServerOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The session id.")
    var session: String

    @Option(parsing: .unconditional, help: "The version to show (default: the head).")
    var at: String?

    func run() async throws {
        let report: PointReport
        if let connection = try serverOptions.connection(storeOptions) {
            let (store, listing) = try await connection.session(session)
            let version =
                try at.map { try parseVersion($0, head: listing.version, allowingZero: true) } ?? listing.version
            report = try await connection.get(
                PointReport.self, connection.sessionPath(session, store: store) + ["state"],
                query: [URLQueryItem(name: "version", value: String(version))])
        } else {
            let engine = try storeOptions.openEngine()
            defer { engine.close() }
            let info = try engine.existingSession(session)
            let version =
                try at.map { try parseVersion($0, head: info.headVersion, allowingZero: true) } ?? info.headVersion
            var cursor = try engine.replayCursor(for: info.session)
            report = PointReport(try cursor.seek(to: version), machine: info.machine, versions: info.headVersion)
        }
        if output.json {
            try Terminal.printJSON(report)
            return
        }
        print("session     \(report.session.shown) (\((report.machine ?? "").shown)), \(report.versions ?? 0) versions")
        print(report.text)
    }
}

extension JSONValue {
    /// One-line JSON text with sorted keys, for text output: the control characters JSON leaves
    /// as they are (DEL, C1) escaped too (``Swift/String/shown``).
    var compactJSON: String {
        guard let data = try? encoded() else { return "?" }
        return String(decoding: data, as: UTF8.self).shown
    }
}
