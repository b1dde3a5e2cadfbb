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

    private struct Script: Decodable {
        struct Step: Decodable {
            struct Named: Decodable { let name: String }
            let event: Named
            let nextConfiguration: [String]
        }
        let initialConfiguration: [String]
        let events: [Step]
    }

    /// Every `*.scxml` file under `root` with a `*.json` beside it, sorted by name.
    static func find(in root: URL) -> [ConformanceCase] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        let rootPath = root.standardizedFileURL.path
        var cases: [ConformanceCase] = []
        for case let url as URL in enumerator where url.pathExtension == "scxml" {
            let script = url.deletingPathExtension().appendingPathExtension("json")
            guard FileManager.default.fileExists(atPath: script.path) else { continue }
            var name = url.deletingPathExtension().standardizedFileURL.path
            if name.hasPrefix(rootPath) { name = String(name.dropFirst(rootPath.count)) }
            while name.hasPrefix("/") { name.removeFirst() }
            cases.append(ConformanceCase(name: name, document: url, script: script))
        }
        return cases.sorted { $0.name < $1.name }
    }

    /// Imports, starts, and compares the atomic configuration after start and after each event.
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
        do {
            var state = try machine.start().state
            if let mismatch = compare(machine, state, expected.initialConfiguration, after: "start") {
                return .failed(mismatch)
            }
            for (position, step) in expected.events.enumerated() {
                // A finished machine takes no more events and keeps its configuration.
                if !state.isFinished { state = try machine.send(Event(step.event.name), in: state).state }
                let label = "event #\(position + 1) '\(step.event.name)'"
                if let mismatch = compare(machine, state, step.nextConfiguration, after: label) {
                    return .failed(mismatch)
                }
            }
        } catch {
            return .failed("\(error)")
        }
        return .passed
    }

    private func compare(_ machine: Machine, _ state: MachineState, _ expected: [String], after label: String) -> String? {
        let actual = machine.atomicStates(of: state.configuration)
        if Set(actual) == Set(expected) { return nil }
        return "after \(label): expected [\(expected.sorted().joined(separator: ", "))], got [\(actual.sorted().joined(separator: ", "))]"
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
