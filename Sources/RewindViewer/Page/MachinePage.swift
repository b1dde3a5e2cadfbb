import Foundation
import Rewind

/// The browser page of one machine's sessions: its funnel (from the screen-flow projection:
/// how many sessions reached each state, how many stopped there) with a drill-down to the
/// sessions that stopped at a state, and every session, each opening in the same page as a
/// ``SessionPage`` does (`#session=ID&v=12`). With an ``upgradeCheck`` it shows that report
/// above the funnel: its totals, and its sessions by kind, each opening at its first divergence.
///
/// The engine must run the built-in ``ScreenFlowProjection`` (as the `rewind` tool's does).
public struct MachinePage: Sendable {
    /// The engine whose store holds the sessions.
    public let engine: Engine
    /// The machine's name.
    public let machine: String
    /// The redaction rules applied to every session's values.
    public var redaction: Redaction
    /// Whether ``html()`` fails with ``ViewerError/unmatchedRedactions(paths:)`` when a redaction
    /// rule matches no value of any session. Default `false`.
    public var requiresEveryRedactionToMatch = false
    /// The upgrade check of a new definition against the machine's sessions
    /// (``Engine/upgradeCheck(of:against:migrations:label:progress:)``), shown above the funnel;
    /// `nil` (the default) shows none.
    public var upgradeCheck: UpgradeCheckReport?

    /// The page of `machine`'s sessions in `engine`'s store.
    public init(engine: Engine, machine: String, redacting redaction: Redaction = Redaction([])) {
        self.engine = engine
        self.machine = machine
        self.redaction = redaction
    }

    /// The page as UTF-8 HTML.
    ///
    /// - Throws: ``ViewerError/noSessions(machine:)`` when the store has no session of the machine;
    ///   ``ViewerError/unmatchedRedactions(paths:)`` (with ``requiresEveryRedactionToMatch``); the
    ///   projection's and the replay engine's errors.
    public func html() throws -> Data {
        let infos = try engine.sessions().filter { $0.machine == machine }.sorted {
            $0.session.rawValue < $1.session.rawValue
        }
        guard let first = infos.first else { throw ViewerError.noSessions(machine: machine) }
        let replay = engine.replay()
        let definition: MachineDefinition
        if let registered = engine.machine(named: machine) {
            definition = registered.definition
        } else {
            definition = try SessionPage.definition(of: first, in: replay, engine: engine)
        }
        let diagram = StatechartDiagram(definition)
        let flows = engine.screenFlows
        let funnel = try flows.funnel(machine: machine)
        var redaction = redaction
        redaction.protect(definition)
        var writer = PageJSONWriter()
        writer.raw(#"{"kind":"machine","machine":"#)
        writer.string(machine)
        writer.key("sessions")
        var position: [String: Int] = [:]
        var encodings: [SessionEncoding] = []
        for (index, info) in infos.enumerated() {
            position[info.session.rawValue] = index
            encodings.append(try SessionPage.encoding(of: info, in: replay, diagram: diagram, redaction: &redaction))
        }
        let swept = redaction
        try redaction.requireEveryRuleMatched(requiresEveryRedactionToMatch)
        writer.array(encodings) { writer, encoding in encoding.write(to: &writer, sweep: swept.sweep) }
        writer.key("funnel")
        writer.raw("{")
        writer.key("sessions", first: true)
        writer.integer(funnel.sessions)
        writer.key("steps")
        var states = definition.stateIDs
        for state in funnel.reached.keys.sorted() where !states.contains(state) { states.append(state) }
        var steps: [(state: String, reached: Int, stopped: Int, sessions: [Int])] = []
        for step in funnel.steps(along: states) where step.reached > 0 {
            let stopped = try flows.sessions(inState: step.state, machine: machine).compactMap { position[$0.rawValue] }
            steps.append((step.state, step.reached, step.stopped, stopped))
        }
        writer.array(steps) { writer, step in
            writer.raw("{")
            writer.key("state", first: true)
            writer.string(step.state)
            writer.key("reached")
            writer.integer(step.reached)
            writer.key("stopped")
            writer.integer(step.stopped)
            writer.key("sessions")
            writer.integers(step.sessions)
            writer.raw("}")
        }
        writer.raw("}")
        if let upgradeCheck { try Self.write(upgradeCheck, to: &writer) }
        SessionPage.writeRedaction(redaction, to: &writer)
        writer.raw("}")
        return PageTemplate.html(
            title: "\(machine) · \(infos.count) sessions", data: writer.bytes, diagram: diagram.svg,
            archive: nil, archiveName: "")
    }
}

extension MachinePage {
    /// `"upgradeCheck": {"summary", "passes", "report", "details"}`: the totals line, whether the
    /// release passes, the report as `rewind upgrade-check --json` prints it, and each listed
    /// session's detail in words (in the order of the report's `sessions`).
    static func write(_ report: UpgradeCheckReport, to writer: inout PageJSONWriter) throws {
        writer.key("upgradeCheck")
        writer.raw("{")
        writer.key("summary", first: true)
        writer.string(report.description)
        writer.key("passes")
        writer.raw(report.passes ? "true" : "false")
        writer.key("report")
        writer.value(try JSONValue(encoding: report))
        writer.key("details")
        writer.value(.array(report.sessions.map { .string($0.detail) }))
        writer.raw("}")
    }
}

/// Why the viewer could not write a page.
public enum ViewerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store holds no session of the machine.
    case noSessions(machine: String)
    /// Redaction rules that matched no value of the page's sessions (`paths`, as given), while
    /// the page required every rule to match (``SessionPage/requiresEveryRedactionToMatch``):
    /// a mistyped path would otherwise leave the values it meant to hide in the page. No page
    /// was made.
    case unmatchedRedactions(paths: [String])

    /// The error in words.
    public var description: String {
        switch self {
        case .noSessions(let machine): "the store has no session of machine '\(machine)'"
        case .unmatchedRedactions(let paths):
            "no value matched the redaction "
                + (paths.count == 1 ? "path " : "paths ") + paths.map { "'\($0)'" }.joined(separator: ", ")
                + ": check the spelling against the session's payload, data and context; nothing was written"
        }
    }
}
