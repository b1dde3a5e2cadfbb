import ArgumentParser
import Foundation
import Rewind

/// `rewind diff SESSION A B`: what changed between two versions of a session.
struct Diff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two versions of a session: states exited and entered, data, context, navigation.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var serverOptions: ServerOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The session id.")
    var session: String
    @Argument(help: "The first version.")
    var from: String
    @Argument(help: "The second version.")
    var to: String

    func run() async throws {
        let report: DiffReport
        if let connection = try serverOptions.connection(storeOptions) {
            let (store, listing) = try await connection.session(session)
            let a = try parseVersion(from, head: listing.version, allowingZero: true)
            let b = try parseVersion(to, head: listing.version, allowingZero: true)
            report = try await connection.get(
                DiffReport.self, connection.sessionPath(session, store: store) + ["diff"],
                query: [URLQueryItem(name: "from", value: String(a)), URLQueryItem(name: "to", value: String(b))])
        } else {
            let engine = try storeOptions.openEngine()
            defer { engine.close() }
            let info = try engine.existingSession(session)
            let a = try parseVersion(from, head: info.headVersion, allowingZero: true)
            let b = try parseVersion(to, head: info.headVersion, allowingZero: true)
            report = DiffReport(try engine.diff(info.session, from: a, to: b))
        }
        if output.json {
            try Terminal.printJSON(report)
        } else {
            print(report.text)
        }
    }
}
