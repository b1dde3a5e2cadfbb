import Foundation
import RewindMachine

/// One SCXML test case: a document and its expected configurations.
struct ConformanceCase {
    /// The case's name: its path relative to the folder, without extension (`history/history0`).
    let name: String
    let document: URL
    let script: URL

    enum Outcome {
        case passed
        case failed(String)
    }

    /// The case's script: the expected atomic configuration after start, then steps. A step
    /// waits `after` milliseconds of the machine's clock (delivering the machine's own sends as
    /// they come due), then sends `event` (when there is one), and expects `nextConfiguration`.
    struct Script: Decodable {
        struct Step: Decodable {
            struct Named: Decodable { let name: String }
            let after: Int64?
            let event: Named?
            let nextConfiguration: [String]
        }
        let initialConfiguration: [String]
        let events: [Step]
    }

    /// Every `*.scxml` file under `root` with a `*.json` beside it, sorted by name (relative to
    /// `root`, after `prefix`).
    static func find(in root: URL, prefix: String = "") -> [ConformanceCase] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            return []
        }
        let rootPath = root.standardizedFileURL.path
        var cases: [ConformanceCase] = []
        for case let url as URL in enumerator where url.pathExtension == "scxml" {
            let script = url.deletingPathExtension().appendingPathExtension("json")
            guard FileManager.default.fileExists(atPath: script.path) else { continue }
            var name = url.deletingPathExtension().standardizedFileURL.path
            if name.hasPrefix(rootPath) { name = String(name.dropFirst(rootPath.count)) }
            while name.hasPrefix("/") { name.removeFirst() }
            cases.append(ConformanceCase(name: prefix + name, document: url, script: script))
        }
        return cases.sorted { $0.name < $1.name }
    }

    /// Imports and starts the document, then compares the atomic configuration after start and
    /// after each step of the script.
    func run() -> Outcome {
        let expected: Script
        do {
            expected = try JSONDecoder().decode(Script.self, from: Data(contentsOf: script))
        } catch {
            return .failed("cannot read script: \(error)")
        }
        let machine: Machine
        do {
            let definition = try MachineDefinition(scxmlFileAt: document)
            machine = try Machine(definition, options: Machine.Options(unhandledEvents: .ignore))
        } catch {
            return .failed("cannot load document: \(error)")
        }
        return ConformanceDriver(machine: machine).run(expected)
    }

}

/// Cases whose expected configurations follow SCION's semantics where Rewind follows the W3C
/// algorithm, each with the reason. A case listed here that fails is counted apart; one that passes
/// counts as passed.
enum KnownDifferences {
    static let cases: [String: String] = [:]

    static func justification(for name: String) -> String? {
        cases[name] ?? cases[String(name.split(separator: "/").last ?? "")]
    }
}
