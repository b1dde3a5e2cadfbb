import ArgumentParser
import Rewind

/// `rewind replay SESSION`: time travel through a session in the terminal.
struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Step through a session in the terminal: Left/Right step, Up/Down PgUp/PgDn scroll, Home/End, g to go to a version, q or Ctrl-C to quit.",
        discussion: "Without a terminal it prints every step with what changed.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The session id.")
    var session: String

    @Option(parsing: .unconditional, help: "The version to start at (default: 1).")
    var at: String?

    func run() async throws {
        let engine = try storeOptions.openEngine()
        defer { engine.close() }
        let info = try engine.existingSession(session)
        var cursor = try engine.replayCursor(for: info.session)
        let start = try at.map { try parseVersion($0, head: info.headVersion) } ?? info.firstVersion
        if !output.json, let terminal = RawTerminal() {
            try interact(&cursor, info: info, start: start, terminal: terminal)
        } else {
            try printSteps(&cursor, info: info, from: start)
        }
    }

    /// Prints every step from `version` to the head, each with its diff from the one before.
    private func printSteps(_ cursor: inout ReplayCursor, info: SessionInfo, from version: UInt64) throws {
        var previous = version > info.firstVersion ? try cursor.seek(to: version - 1) : nil
        var point = try cursor.seek(to: version)
        var steps: [PointReport] = []
        while true {
            let report = PointReport(point)
            let diff = previous.map { DiffReport(ReplayDiff(from: $0, to: point)) }
            if output.json {
                steps.append(report)
            } else {
                print(ReplayScreen.timeline(version: point.version, head: info.headVersion))
                print(report.text)
                if let diff { print(diff.text) }
                print()
            }
            previous = point
            guard let next = try cursor.stepForward() else { break }
            point = next
        }
        if output.json { try Terminal.printJSON(steps) }
    }

    /// Steps through the session on the terminal until `q`, Ctrl-C, SIGTERM or the end of input;
    /// the terminal is restored on every way out, and a signal exits with 128 + its number.
    private func interact(_ cursor: inout ReplayCursor, info: SessionInfo, start: UInt64, terminal: RawTerminal) throws
    {
        defer { terminal.restore() }
        let glyphs = Glyphs.current
        var previous: ReplayPoint? = start > info.firstVersion ? try cursor.seek(to: start - 1) : nil
        var point = try cursor.seek(to: start)
        var typed: String?
        var message: String?
        var scroll = 0
        var size = terminal.size
        while true {
            var body = PointReport(point).text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if let previous {
                body += ["", "what changed:"]
                body += DiffReport(ReplayDiff(from: previous, to: point)).text.split(separator: "\n").map(String.init)
            }
            let dot = " \(glyphs.dot) "
            let full =
                "rewind replay\(dot)\(info.session.shown) (\(info.machine.shown))\(dot)version \(point.version) of \(info.headVersion)"
            let header =
                full.terminalWidth <= size.columns
                ? full
                : "version \(point.version) of \(info.headVersion)\(dot)\(info.session.shown) (\(info.machine.shown))"
            var screen = ReplayScreen(
                header: header, version: point.version, head: info.headVersion, body: body,
                status: typed.map { "go to version: \($0)" + (message.map { " \($0)" } ?? "") } ?? message,
                scroll: scroll, glyphs: glyphs)
            scroll = min(scroll, screen.maximumScroll(columns: size.columns, rows: size.rows))
            screen.scroll = scroll
            terminal.draw(screen.lines(columns: size.columns, rows: size.rows))
            let page = max(1, ReplayScreen.bodyRows(rows: size.rows) - 1)
            for event in terminal.nextEvents() {
                switch event {
                case .endOfInput: return
                case .signal(let number): throw ExitCode(128 + number)
                case .resized: size = terminal.size
                case .key(let key):
                    if let entry = typed {
                        // The `g` prompt: digits, Backspace, Enter to go, Escape to cancel.
                        message = nil
                        switch key {
                        case .enter:
                            typed = nil
                            if let version = UInt64(entry), version >= info.firstVersion, version <= info.headVersion {
                                previous = version > info.firstVersion ? try cursor.seek(to: version - 1) : nil
                                point = try cursor.seek(to: version)
                            } else {
                                message =
                                    "no version \(entry): versions run from \(info.firstVersion) to \(info.headVersion)"
                            }
                        case .escape: typed = nil
                        case .backspace: typed = String(entry.dropLast())
                        case .character(let character) where character.isASCII && character.isNumber:
                            typed = entry + String(character)
                        case .character(let character):
                            typed = entry
                            message = "('\(character)' is not a digit)"
                        case .interrupt: throw ExitCode(130)
                        default: break
                        }
                        continue
                    }
                    message = nil
                    switch key {
                    case .arrow(.right, modifiers: 0):
                        if let next = try cursor.stepForward() {
                            previous = point
                            point = next
                        }
                    case .arrow(.left, modifiers: 0):
                        if point.version > info.firstVersion {
                            let target = point.version - 1
                            previous = target > info.firstVersion ? try cursor.seek(to: target - 1) : nil
                            point = try cursor.seek(to: target)
                        }
                    case .home:
                        previous = nil
                        point = try cursor.seek(to: info.firstVersion)
                    case .end:
                        previous =
                            info.headVersion > info.firstVersion ? try cursor.seek(to: info.headVersion - 1) : nil
                        point = try cursor.seek(to: info.headVersion)
                    case .arrow(.up, modifiers: 0): scroll = max(0, scroll - 1)
                    case .arrow(.down, modifiers: 0): scroll += 1
                    case .pageUp: scroll = max(0, scroll - page)
                    case .pageDown: scroll += page
                    case .character("g"): typed = ""
                    case .character("q"): return
                    case .interrupt: throw ExitCode(130)
                    default: break  // other keys (Delete, Escape, modified arrows…) do nothing
                    }
                }
            }
        }
    }
}
