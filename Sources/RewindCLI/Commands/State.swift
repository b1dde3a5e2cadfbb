import ArgumentParser
import Rewind

/// `rewind state SESSION`: a session's state at its head.
struct State: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a session's configuration, state data, context and navigation stack.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The session id.")
    var session: String

    struct Report: Encodable {
        var session: String
        var machine: String
        var version: UInt64
        var time: String?
        var configuration: [String]
        var activeStates: [String]
        var data: [String: JSONValue]
        var context: JSONValue
        var navigationStack: [String]
    }

    func run() async throws {
        let engine = try storeOptions.openEngine()
        defer { engine.close() }
        let info = try engine.existingSession(session)
        let resumed = try engine.session(info.session, policy: .strict)
        let snapshot = resumed.snapshot
        let report = Report(
            session: info.session.rawValue, machine: info.machine, version: snapshot.version,
            time: snapshot.timestamp?.description, configuration: snapshot.state.configuration,
            activeStates: resumed.activeStates, data: snapshot.state.data, context: snapshot.state.context,
            navigationStack: snapshot.navigation.screens)
        if output.json {
            try Terminal.printJSON(report)
            return
        }
        print("""
            session     \(report.session) (\(report.machine)) at version \(report.version)\(report.time.map { " · \($0)" } ?? "")
            active      \(report.activeStates.joined(separator: ", "))
            config      \(report.configuration.joined(separator: ", "))
            navigation  \(report.navigationStack.isEmpty ? "(empty)" : report.navigationStack.joined(separator: " › "))
            """)
        if !report.data.isEmpty {
            for (id, value) in report.data.sorted(by: { $0.key < $1.key }) {
                print("data        \(id): \(value.compactJSON)")
            }
        }
        if !report.context.isNull { print("context     \(report.context.compactJSON)") }
    }
}

extension JSONValue {
    /// One-line JSON text with sorted keys.
    var compactJSON: String {
        guard let data = try? encoded() else { return "?" }
        return String(decoding: data, as: UTF8.self)
    }
}
