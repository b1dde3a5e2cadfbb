import ArgumentParser
import Rewind

/// `rewind replay SESSION`: time travel through a session in the terminal.
struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Step through a session in the terminal: ←/→ step, Home/End, g to go to a version, q to quit.",
        discussion: "Without a terminal it prints every step with what changed.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The session id.")
    var session: String

    @Option(help: "The version to start at (default: 1).")
    var at: String?

    func run() async throws {
        let engine = try storeOptions.openEngine()
        defer { engine.close() }
        let info = try engine.existingSession(session)
        var cursor = try engine.replayCursor(for: info.session)
        let start = try at.map { try parseVersion($0, head: info.headVersion) } ?? 1
        if !output.json, let terminal = RawTerminal() {
            try interact(&cursor, info: info, start: start, terminal: terminal)
        } else {
            try printSteps(&cursor, info: info, from: start)
        }
    }

    /// Prints every step from `version` to the head, each with its diff from the one before.
    private func printSteps(_ cursor: inout ReplayCursor, info: SessionInfo, from version: UInt64) throws {
        var previous = version > 1 ? try cursor.seek(to: version - 1) : nil
        var point = try cursor.seek(to: version)
        var steps: [PointReport] = []
        while true {
            let report = PointReport(point)
            let diff = previous.map { DiffReport(ReplayDiff(from: $0, to: point)) }
            if output.json {
                steps.append(report)
            } else {
                print(Self.timeline(version: point.version, head: info.headVersion))
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

    private func interact(_ cursor: inout ReplayCursor, info: SessionInfo, start: UInt64, terminal: RawTerminal) throws {
        var point = try cursor.seek(to: start)
        var previous: ReplayPoint? = start > 1 ? try cursor.seek(to: start - 1) : nil
        point = try cursor.seek(to: start)
        var typed: String?
        var message = ""
        while true {
            var screen = "rewind replay · \(info.session) (\(info.machine)) · version \(point.version) of \(info.headVersion)\n"
            screen += Self.timeline(version: point.version, head: info.headVersion) + "\n\n"
            screen += PointReport(point).text + "\n\n"
            if let previous { screen += "what changed:\n" + DiffReport(ReplayDiff(from: previous, to: point)).text + "\n" }
            screen += "\n←/→ step · Home/End first/last · g go to version · q quit"
            if let typed { screen += "\ngo to version: \(typed)" } else if !message.isEmpty { screen += "\n\(message)" }
            terminal.draw(screen)
            guard let key = terminal.readKey() else { return }
            message = ""
            if var entry = typed {
                switch key {
                case .enter:
                    typed = nil
                    if let version = UInt64(entry), version >= 1, version <= info.headVersion {
                        previous = version > 1 ? try cursor.seek(to: version - 1) : nil
                        point = try cursor.seek(to: version)
                    } else {
                        message = "no version \(entry): versions run from 1 to \(info.headVersion)"
                    }
                case .escape: typed = nil
                case .backspace:
                    if !entry.isEmpty { entry.removeLast() }
                    typed = entry
                case .character(let character) where character.isNumber:
                    entry.append(character)
                    typed = entry
                default: break
                }
                continue
            }
            switch key {
            case .right:
                if let next = try cursor.stepForward() {
                    previous = point
                    point = next
                }
            case .left:
                if point.version > 1 {
                    let target = point.version - 1
                    previous = target > 1 ? try cursor.seek(to: target - 1) : nil
                    point = try cursor.seek(to: target)
                }
            case .home:
                previous = nil
                point = try cursor.seek(to: 1)
            case .end:
                previous = info.headVersion > 1 ? try cursor.seek(to: info.headVersion - 1) : nil
                point = try cursor.seek(to: info.headVersion)
            case .character("g"): typed = ""
            case .character("q"), .escape: return
            default: break
            }
        }
    }

    /// A bar of the session with the current version marked: `[━━━━━●───────] 5/12`.
    static func timeline(version: UInt64, head: UInt64, width: Int = 40) -> String {
        let cells = max(1, min(width, Int(head)))
        // Integer arithmetic: the floating-point ratio fell one cell short for some versions
        // (16 of 23, 32 of 40), marking two versions in one cell and none in the next.
        let position = head <= 1 ? 0 : Int((version - 1) * UInt64(cells - 1) / (head - 1))
        let bar = (0..<cells).map { $0 < position ? "━" : $0 == position ? "●" : "─" }.joined()
        return "[\(bar)] \(version)/\(head)"
    }
}
