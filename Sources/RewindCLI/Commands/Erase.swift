import ArgumentParser
import Foundation
import Rewind

/// `rewind erase`: erase sessions (account deletion) by id, id prefix or context value.
struct Erase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Erase sessions: their records, snapshots and projection states (account deletion).",
        discussion: """
            Select sessions by id (arguments), by id prefix (--prefix) or by a value of their \
            context (--context userID=42, the value read as JSON, else as a string); several \
            selectors add up. The store keeps a tombstone (a keyed hash of each id, not the id) so an \
            erased session cannot be resumed, replayed or started again, and a notice for the fleet \
            server. The erased bytes leave the data file at the next `rewind compact`. \
            --dry-run lists what would be erased and changes nothing.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "Sessions to erase, by id.")
    var sessions: [String] = []

    @Option(name: .long, help: "Erase every session whose id begins with this prefix.")
    var prefix: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Erase every session whose context has this value at this path.",
            valueName: "path=value"))
    var context: String?

    @Flag(name: .long, help: "List the sessions that would be erased; change nothing.")
    var dryRun = false

    func validate() throws {
        if sessions.isEmpty && prefix == nil && context == nil {
            throw ValidationError("name the sessions to erase: ids, --prefix or --context path=value")
        }
        if prefix?.isEmpty == true {
            throw ValidationError("--prefix needs at least one character (an empty prefix would select every session)")
        }
        if let context, contextSelector(context) == nil {
            throw ValidationError("--context needs path=value, a path of object keys and a value: '\(context.shown)'")
        }
    }

    func run() async throws {
        let engine = try storeOptions.openEngine(writing: !dryRun) { reader in
            for id in sessions { _ = try reader.existingSession(id) }
        }
        defer { engine.close() }
        let predicate = try selection()
        if dryRun {
            let matching = try engine.sessions(matching: predicate)
            if output.json {
                try Terminal.printJSON(DryRun(sessions: matching.map(\.rawValue)))
            } else {
                print("would erase \(count(matching.count)): \(matching.map(\.shown).joined(separator: ", "))")
            }
            return
        }
        let report = try engine.erase(where: predicate)
        if output.json {
            try Terminal.printJSON(report)
        } else if report.sessions.isEmpty {
            print("erased nothing: no session matched")
        } else {
            print(
                "erased \(count(report.sessions.count)) (\(records(UInt64(report.records)))): "
                    + report.sessions.map(\.shown).joined(separator: ", "))
            print("their bytes leave the data file at the next `rewind compact`")
        }
    }

    /// What `--dry-run --json` prints.
    struct DryRun: Encodable {
        var sessions: [String]
    }

    /// The sessions the arguments and options select.
    private func selection() throws -> SessionPredicate {
        var selectors: [SessionPredicate] = []
        if !sessions.isEmpty { selectors.append(.ids(try sessions.map { try SessionID($0) })) }
        if let prefix { selectors.append(.idPrefix(prefix)) }
        if let (path, value) = context.flatMap(contextSelector) { selectors.append(.context(path, equals: value)) }
        return .any(of: selectors)
    }

    /// `path=value` as the path and the value (JSON when it parses, else the text).
    private func contextSelector(_ text: String) -> (path: String, value: JSONValue)? {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let path = String(text[..<equals])
        guard !path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            return nil
        }
        let raw = String(text[text.index(after: equals)...])
        let value = (try? JSONValue(jsonBytes: Array(raw.utf8))) ?? .string(raw)
        return (path, value)
    }

    private func count(_ sessions: Int) -> String {
        sessions == 1 ? "1 session" : "\(sessions) sessions"
    }
}
