/// A Swift Testing source file that plays recorded sessions on the app's machine: one `@Test`
/// per ``RecordedSession``, its steps written as literals, the checks made by
/// ``RecordedSession/play(on:)`` (what `rewind session-test` writes).
///
/// The file imports `Rewind`, `Testing` and ``imports`` (the app's modules), and gets the app's
/// machine from ``machineExpression``, a Swift expression of type `Machine` evaluated in the app's
/// code (`try CheckoutFlow.machine()`). It holds no paths and no values the log does not: what
/// the store redacted stays redacted.
public struct SessionTestSource: Sendable, Hashable {
    /// The sessions, one `@Test` each, in this order.
    public var sessions: [RecordedSession]
    /// The modules imported besides `Rewind` and `Testing` (the app's, where the machine is).
    public var imports: [String]
    /// The Swift expression giving the app's machine (`try CheckoutFlow.machine()`); it may use `try`.
    public var machineExpression: String
    /// The name of the suite (a struct); by default `Recorded` + the machine's name + `Sessions`.
    public var suiteName: String

    /// A file of `sessions`' tests getting the machine from `machineExpression` in `imports`.
    public init(sessions: [RecordedSession], imports: [String], machineExpression: String, suiteName: String? = nil) {
        self.sessions = sessions
        self.imports = imports
        self.machineExpression = machineExpression
        self.suiteName =
            suiteName
            ?? Self.identifier(
                "Recorded " + (sessions.first?.machine ?? "") + " Sessions", upperCamelCase: true)
    }

    /// The file's text.
    public var text: String {
        var lines: [String] = [
            // Generated: written again by the command, never reformatted.
            "// swift-format-ignore-file",
            "// Regression tests from recorded sessions, written by `rewind session-test`. Each test plays one",
            "// session's recorded events, with their payloads, on the app's machine and checks after every",
            "// version the active configuration, the data the step entered states with and the navigation",
            "// stack; a failure names the session and the version. Values are as the store recorded them",
            "// (redacted by its policy); a step marked `redacted: true` that the machine does not reproduce",
            "// from its redacted values is not re-checked (`SessionPlayback.uncheckedRedactedVersions`).",
            "import Rewind",
        ]
        lines += (imports.filter { $0 != "Rewind" && $0 != "Testing" }).map { "import \($0)" }
        lines += [
            "import Testing",
            "",
            "struct \(suiteName) {",
            "    /// The app's machine, as the app makes it.",
            "    func machine() throws -> Machine {",
            "        \(machineExpression)",
            "    }",
            "",
            "    /// Plays `session` on the app's machine; the first version it does not reproduce is an issue.",
            "    func play(_ session: RecordedSession, sourceLocation: SourceLocation = #_sourceLocation) throws {",
            "        let playback = try session.play(on: try machine())",
            "        if let mismatch = playback.mismatch { Issue.record(\"\\(mismatch)\", sourceLocation: sourceLocation) }",
            "    }",
        ]
        var names: Set<String> = []
        for session in sessions {
            var name = Self.identifier("session " + session.id, upperCamelCase: false)
            if names.contains(name) {
                var number = 2
                while names.contains("\(name)_\(number)") { number += 1 }
                name = "\(name)_\(number)"
            }
            names.insert(name)
            let versions =
                session.steps.isEmpty
                ? "no versions"
                : "versions \(session.steps[0].version)–\(session.steps[session.steps.count - 1].version)"
            lines += [
                "",
                "    @Test(\(Self.stringLiteral("session \(session.id) (\(session.machine), \(versions))")))",
                "    func \(name)() throws {",
                "        try play(RecordedSession(id: \(Self.stringLiteral(session.id)), machine: \(Self.stringLiteral(session.machine)), startedAt: \(Self.grouped(session.startedAt)), steps: [",
            ]
            for step in session.steps {
                lines += Self.lines(of: step)
            }
            lines += [
                "        ]))",
                "    }",
            ]
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The literal of one step (two or three lines).
    private static func lines(of step: RecordedSession.Step) -> [String] {
        var lines = [
            "            .init(version: \(step.version), event: \(stringLiteral(step.event)), at: \(step.at), payload: \(rawLiteral(step.payload)),",
            "                  configuration: [\(step.configuration.map(stringLiteral).joined(separator: ", "))], stateData: \(rawLiteral(step.stateData)),",
            "                  navigation: \(rawLiteral(step.navigation))",
        ]
        if let state = step.recordedState {
            lines[lines.count - 1] += ","
            lines.append("                  recordedState: \(rawLiteral(state))")
        }
        if step.redacted { lines[lines.count - 1] += ", redacted: true" }
        lines[lines.count - 1] += "),"
        return lines
    }

    /// `number` as a Swift integer literal with its digits grouped by three (`1_767_225_601_500`).
    static func grouped(_ number: Int64) -> String {
        let digits = Array(String(number.magnitude))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text += "_" }
            text.append(digit)
        }
        return (number < 0 ? "-" : "") + text
    }

    /// `text` as a Swift string literal: quotes and backslashes escaped, control characters (and
    /// other invisible scalars) as `\u{…}`.
    static func stringLiteral(_ text: String) -> String {
        var literal = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "\n": literal += "\\n"
            case "\t": literal += "\\t"
            case "\r": literal += "\\r"
            default:
                if DisplayText.isControl(scalar) {
                    literal += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    literal.unicodeScalars.append(scalar)
                }
            }
        }
        return literal + "\""
    }

    /// `text` (JSON on one line) as a raw string literal `#"…"#`, with as many `#` as it takes that
    /// no `"#…` or `\#…` inside ends it or escapes; a text with control characters as a plain
    /// literal.
    static func rawLiteral(_ text: String) -> String {
        guard !text.unicodeScalars.contains(where: DisplayText.isControl) else { return stringLiteral(text) }
        var hashes = "#"
        while text.contains("\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
        return hashes + "\"" + text + "\"" + hashes
    }

    /// `text` as a Swift identifier: its words (letters and digits) joined in camel case, `_`
    /// first when it would start with a digit or be empty.
    static func identifier(_ text: String, upperCamelCase: Bool) -> String {
        let words = text.unicodeScalars.split {
            !($0.properties.isAlphabetic || ("0"..."9").contains($0)) || !$0.isASCII
        }
        .map { String(String.UnicodeScalarView($0)) }
        var name = ""
        for (index, word) in words.enumerated() {
            name +=
                index == 0 && !upperCamelCase
                ? word.prefix(1).lowercased() + word.dropFirst() : word.prefix(1).uppercased() + word.dropFirst()
        }
        if name.isEmpty || name.first?.isNumber == true { name = "_" + name }
        return name
    }
}
