import Foundation
import Rewind

/// The browser page of one recorded session: one self-contained HTML file (its style, script,
/// data, diagram and the session's archive inline; no network access) that shows the session at
/// any version — timeline, statechart, navigation stack, data — and downloads the archive for
/// `rewind import`.
///
/// ```swift
/// let rules = try Redaction(paths: ["payload.card.*", "data.*.email"])
/// let page = SessionPage(engine: engine, session: "user-42", redacting: rules)
/// try page.html().write(to: reportURL)   // attach to a bug report
/// ```
///
/// The page's values come from the replay engine (``LogReplay``: a ``ReplayCursor`` stepping
/// through every version), written in a compact encoding the page's script looks values up in;
/// redacted values are replaced before anything is written, in the page and in the embedded
/// archive. A fleet server renders the page of an uploaded session from its own log
/// (``init(log:session:registered:bindings:coder:redacting:verifyingAgainst:embedsArchive:)``).
public struct SessionPage: Sendable {
    /// The replay the page's values come from.
    public let replay: LogReplay
    /// The engine whose store holds the session, when the page was made from one (`nil` for a
    /// page made from a log).
    public let engine: Engine?
    /// The session shown.
    public let session: SessionID
    /// The redaction rules applied to its payloads, state data and context.
    public var redaction: Redaction
    /// A machine to verify the session against (``Engine/verify(_:against:)``); its first
    /// divergence is marked on the timeline. `nil`: no verification.
    public var verifyingAgainst: Machine?
    /// Whether the page embeds the session's archive (its download button). Default `true`; a
    /// trimmed session's is format version 3, with its base state (redacted as its records are).
    public var embedsArchive: Bool
    /// Whether ``html()`` fails with ``ViewerError/unmatchedRedactions(paths:)`` when a redaction
    /// rule matches no value of the session. Default `false`.
    public var requiresEveryRedactionToMatch = false

    /// The page of `session` in `engine`'s store (its replay: ``Engine/replay(bindings:)``).
    public init(
        engine: Engine, session: SessionID, redacting redaction: Redaction = Redaction([]),
        verifyingAgainst machine: Machine? = nil, embedsArchive: Bool = true
    ) {
        self.init(
            replay: engine.replay(), engine: engine, session: session, redacting: redaction,
            verifyingAgainst: machine, embedsArchive: embedsArchive)
    }

    /// The page of `session` in `log` (a fleet server's log of what devices uploaded, say),
    /// replayed as ``LogReplay/init(log:registered:bindings:coder:)`` says.
    public init(
        log: any TransitionLog, session: SessionID, registered: [Machine] = [], bindings: Bindings = Bindings(),
        coder: any PayloadCoder = JSONPayloadCoder(), redacting redaction: Redaction = Redaction([]),
        verifyingAgainst machine: Machine? = nil, embedsArchive: Bool = true
    ) {
        self.init(
            replay: LogReplay(log: log, registered: registered, bindings: bindings, coder: coder), engine: nil,
            session: session, redacting: redaction, verifyingAgainst: machine, embedsArchive: embedsArchive)
    }

    private init(
        replay: LogReplay, engine: Engine?, session: SessionID, redacting redaction: Redaction,
        verifyingAgainst machine: Machine?, embedsArchive: Bool
    ) {
        self.replay = replay
        self.engine = engine
        self.session = session
        self.redaction = redaction
        self.verifyingAgainst = machine
        self.embedsArchive = embedsArchive
    }

    /// The page as UTF-8 HTML.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, the replay engine's errors
    ///   (``ReplayError``), ``SessionArchiveError`` when the archive cannot be redacted,
    ///   ``ViewerError/unmatchedRedactions(paths:)`` (with ``requiresEveryRedactionToMatch``).
    public func html() throws -> Data {
        let info = try replay.log.readLog { try $0.requireSessionInfo(for: session) }
        var redaction = redaction
        let definition = try SessionPage.definition(of: info, in: replay, engine: engine)
        redaction.protect(definition)
        let diagram = StatechartDiagram(definition)
        // The session's values first: the strings the rules replace in its context are then
        // known when the archive is swept.
        let encoding = try SessionPage.encoding(of: info, in: replay, diagram: diagram, redaction: &redaction)
        var archive: Data?
        // A trimmed session's archive holds its base state, redacted as its records are.
        if embedsArchive {
            archive = try redaction.apply(toArchive: try replay.exportSession(session))
        }
        let swept = redaction
        try redaction.requireEveryRuleMatched(requiresEveryRedactionToMatch)
        let verification = try verifyingAgainst.map { try replay.verify(session, against: $0) }
        var writer = PageJSONWriter()
        writer.raw(#"{"kind":"session","machine":"#)
        writer.string(info.machine)
        writer.key("sessions")
        writer.raw("[")
        encoding.write(to: &writer, sweep: swept.sweep) { writer in
            SessionPage.writeVerification(verification, to: &writer)
        }
        writer.raw("]")
        writer.key("archive")
        writer.raw(archive == nil ? "false" : "true")
        SessionPage.writeRedaction(redaction, to: &writer)
        writer.raw("}")
        return PageTemplate.html(
            title: "\(info.session.rawValue) · \(info.machine)", data: writer.bytes, diagram: diagram.svg,
            archive: archive, archiveName: "\(info.session.rawValue).rewind")
    }

    /// The definition the diagram draws: the one the session's head record was written under
    /// (stored with the log, or registered with the replay), else the machine `engine` registered
    /// under the session's machine name.
    static func definition(of info: SessionInfo, in replay: LogReplay, engine: Engine?) throws -> MachineDefinition {
        var cursor = try replay.cursor(for: info.session)
        let head = try cursor.last()
        if let version = head.definition {
            if let stored = try replay.log.readLog({ try $0.storedDefinition(name: info.machine, version: version) }) {
                return stored
            }
            if let registered = replay.registeredMachine(version: version) { return registered.definition }
        }
        if let machine = engine?.machine(named: info.machine) { return machine.definition }
        return MachineDefinition(name: info.machine, states: [])
    }

    /// Every version of the session, read with a replay cursor from version 1 (a trimmed
    /// session's base, where its cursor starts) to the head.
    static func encoding(
        of info: SessionInfo, in replay: LogReplay, diagram: StatechartDiagram, redaction: inout Redaction
    ) throws -> SessionEncoding {
        var encoding = SessionEncoding(session: info.session.rawValue, machine: info.machine)
        var cursor = try replay.cursor(for: info.session)
        var next: ReplayPoint? = info.baseVersion == nil ? try cursor.stepForward() : cursor.point
        while let point = next {
            next = try cursor.stepForward()
            let transition = point.event.flatMap {
                diagram.transitionIndex(event: $0, source: point.source, target: point.configuration)
            }
            encoding.append(
                point,
                stateData: redaction.apply(toStateData: point.stateData),
                context: redaction.apply(.context, to: point.context),
                payload: redaction.apply(.payload, to: point.payload),
                navigation: redaction.apply(toNavigation: point.navigation.entries),
                transition: transition)
        }
        return encoding
    }

    static func writeVerification(_ report: VerificationReport?, to writer: inout PageJSONWriter) {
        guard let report else { return }
        writer.key("verification")
        writer.raw("{")
        writer.key("definition", first: true)
        writer.string(report.definition)
        writer.key("first")
        writer.integer(report.firstVersion)
        writer.key("verified")
        writer.integer(report.verifiedRecords)
        if let divergence = report.divergence {
            writer.key("divergence")
            writer.raw("{")
            writer.key("version", first: true)
            writer.integer(divergence.version)
            writer.key("text")
            writer.string(divergence.description)
            writer.raw("}")
        }
        writer.raw("}")
    }

    static func writeRedaction(_ redaction: Redaction, to writer: inout PageJSONWriter) {
        writer.key("rules")
        writer.array(redaction.rules.map(\.description)) { $0.string($1) }
        writer.key("redacted")
        writer.array(redaction.redactedPaths.sorted()) { $0.string($1) }
    }
}
