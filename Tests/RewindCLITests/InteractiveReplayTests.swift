import Foundation
import RewindTestSupport
import Testing

/// `rewind replay SESSION` on a terminal (a tmux pane): ←/→ step, Home/End, `g` + digits +
/// Enter, `q` quits.
struct InteractiveReplayTests {
    /// The lines of the replay screen that show where it is: the header's version, the timeline
    /// and the navigation line.
    struct Shown: Equatable, CustomStringConvertible {
        var version: UInt64?
        var timeline: String?
        var navigation: String?

        init(_ screen: String) {
            let lines = screen.split(separator: "\n").map(String.init)
            version = lines.first { $0.hasPrefix("rewind replay · ") }
                .flatMap { $0.components(separatedBy: " · version ").last?.split(separator: " ").first }
                .flatMap { UInt64($0) }
            timeline = lines.first { $0.hasPrefix("[") }
            navigation = lines.first { $0.hasPrefix("navigation  ") }
                .map { $0.dropFirst("navigation  ".count).components(separatedBy: "   (").first ?? "" }
        }

        var description: String { "v\(version.map(String.init) ?? "?") \(timeline ?? "-") \(navigation ?? "-")" }
    }

    /// What the screen should show at `version`, from `replay --json` and the text replay.
    struct Expected {
        var points: [CommandOutputs.Point]
        var timelines: [UInt64: String]

        func matches(_ shown: Shown, version: UInt64) -> Bool {
            shown.version == version && shown.timeline == timelines[version]
                && shown.navigation == (try? CommandOutputs.stackText(points[Int(version) - 1].navigationStack))
        }
    }

    /// The kanji session of `demo` with the most versions.
    private func longestKanjiSession(of demo: DemoStore) async throws -> CommandOutputs.SessionRow {
        let sessions = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        return try #require(sessions.max { $0.version < $1.version })
    }

    /// The shell command that replays `session` on `demo`'s store, then prints its exit status
    /// (and waits, so the screen stays to be read).
    private func replayCommand(_ session: String, _ options: String..., on demo: DemoStore) -> String {
        "'\(demo.tool.executable.path)' replay '\(session)' \(options.joined(separator: " ")) --store '\(demo.tool.store)'; "
            + "echo \"exited with status $?\"; sleep 60"
    }

    @Test(.hangGuard, .enabled(if: TmuxSession.executable != nil, "tmux is not installed (apt-get install tmux)"))
    func keysStepJumpAndQuitShowingTheRightVersionTimelineAndStack() async throws {
        guard let tmux = TmuxSession.executable else {
            Issue.record("tmux disappeared")
            return
        }
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let row = try await longestKanjiSession(of: demo)
        let head = row.version
        try #require(head >= 4)
        let points = try await demo.tool.json([CommandOutputs.Point].self, ["replay", row.session])
        let text = try await demo.tool.text(["replay", row.session])
        var timelines: [UInt64: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("[") {
            if let version = line.split(separator: " ").last?.split(separator: "/").first.flatMap({ UInt64($0) }) {
                timelines[version] = String(line)
            }
        }
        let expected = Expected(points: points, timelines: timelines)

        let command = replayCommand(row.session, on: demo)
        // Wide enough for a stack's entries with their data on one line.
        try await TmuxSession.with(tmux: tmux, command: command, width: 1000) { terminal in
            func expectScreen(
                at version: UInt64, after keys: [String], sourceLocation: SourceLocation = #_sourceLocation
            ) async throws {
                let screen = try await terminal.waitForScreen { expected.matches(Shown($0), version: version) }
                #expect(
                    expected.matches(Shown(screen), version: version),
                    "after \(keys): expected version \(version), screen:\n\(screen)", sourceLocation: sourceLocation)
            }

            let first = try await terminal.waitForScreen { $0.contains("q quit") }
            #expect(first.contains("rewind replay · \(row.session) (kanji) · version 1 of \(head)"), "\(first)")
            try await expectScreen(at: 1, after: [])
            #expect(!first.contains("what changed:"))

            try await terminal.send("Right")
            try await expectScreen(at: 2, after: ["Right"])
            let second = try await terminal.screen()
            #expect(second.contains("what changed:") && second.contains("diff 1 → 2"), "\(second)")

            try await terminal.send("Right")
            try await expectScreen(at: 3, after: ["Right", "Right"])
            try await terminal.send("Left")
            try await expectScreen(at: 2, after: ["Left"])
            try await terminal.send("End")
            try await expectScreen(at: head, after: ["End"])
            // Past the head it stays at the head: Right then Left lands one before the head (keys
            // are read in order, so the screen after Left shows what Right did, without a sleep).
            try await terminal.send("Right", "Left")
            try await expectScreen(at: head - 1, after: ["End", "Right", "Left"])
            try await terminal.send("Home")
            try await expectScreen(at: 1, after: ["Home"])
            // Before the first it stays at the first: Left then Right lands on version 2.
            try await terminal.send("Left", "Right")
            try await expectScreen(at: 2, after: ["Home", "Left", "Right"])

            try await terminal.send("g", "3")
            let typing = try await terminal.waitForScreen { $0.contains("go to version: 3") }
            #expect(typing.contains("go to version: 3"), "\(typing)")
            try await terminal.send("Enter")
            try await expectScreen(at: 3, after: ["g", "3", "Enter"])
            let jumped = try await terminal.screen()
            #expect(jumped.contains("diff 2 → 3"), "\(jumped)")

            try await terminal.send("g", "9", "9", "Enter")
            let refused = try await terminal.waitForScreen { $0.contains("no version 99") }
            #expect(refused.contains("no version 99: versions run from 1 to \(head)"), "\(refused)")
            #expect(Shown(refused).version == 3)

            try await terminal.send("q")
            let end = try await terminal.waitForScreen { $0.contains("exited with status") }
            #expect(end.contains("exited with status 0"), "\(end)")
        }
    }

    /// A data file truncated under the replay kills the read with SIGBUS: the terminal is
    /// restored (main screen, modes) and one line says what happened, instead of a dead
    /// alternate screen on which `q` does nothing.
    @Test(.hangGuard, .enabled(if: TmuxSession.executable != nil, "tmux is not installed (apt-get install tmux)"))
    func aDataFileTruncatedUnderTheReplayRestoresTheTerminalAndSaysSo() async throws {
        guard let tmux = TmuxSession.executable else {
            Issue.record("tmux disappeared")
            return
        }
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let row = try await longestKanjiSession(of: demo)
        try await TmuxSession.with(tmux: tmux, command: replayCommand(row.session, on: demo)) { terminal in
            _ = try await terminal.waitForScreen { $0.contains("q quit") }
            #expect(try await terminal.display("#{alternate_on}") == "1")
            let handle = try #require(FileHandle(forWritingAtPath: demo.tool.store + "/data.mdb"))
            try handle.truncate(atOffset: 8192)
            try handle.close()
            try await terminal.send("End")
            let end = try await terminal.waitForScreen { $0.contains("exited with status") }
            #expect(end.contains("exited with status \(128 + SIGBUS)"), "\(end)")
            #expect(end.contains("the store's data file changed under the replay"), "\(end)")
            #expect(try await terminal.display("#{alternate_on}") == "0", "the alternate screen was left")
            #expect(try await terminal.display("#{cursor_flag}") == "1", "the cursor is shown")
        }
    }

    @Test(.hangGuard, .enabled(if: TmuxSession.executable != nil, "tmux is not installed (apt-get install tmux)"))
    func escapeCancelsTheGoToPromptWithoutWaitingForAnotherKey() async throws {
        guard let tmux = TmuxSession.executable else {
            Issue.record("tmux disappeared")
            return
        }
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let row = try await longestKanjiSession(of: demo)
        try #require(row.version >= 3)
        let command = replayCommand(row.session, "--at", "2", on: demo)
        // Wide enough for a stack's entries with their data on one line.
        try await TmuxSession.with(tmux: tmux, command: command, width: 1000) { terminal in

            let start = try await terminal.waitForScreen { Shown($0).version == 2 }
            #expect(Shown(start).version == 2, "\(start)")
            try await terminal.send("g", "3")
            let typing = try await terminal.waitForScreen { $0.contains("go to version: 3") }
            #expect(typing.contains("go to version: 3"), "\(typing)")
            try await terminal.send("Escape")
            let cancelled = try await terminal.waitForScreen { !$0.contains("go to version: ") }
            #expect(!cancelled.contains("go to version: "), "Escape did not cancel the prompt:\n\(cancelled)")
            // The next key is a key of its own, not swallowed as part of an escape sequence.
            try await terminal.send("Right")
            let stepped = try await terminal.waitForScreen { Shown($0).version == 3 }
            #expect(Shown(stepped).version == 3, "\(stepped)")
            try await terminal.send("q")
            let end = try await terminal.waitForScreen { $0.contains("exited with status") }
            #expect(end.contains("exited with status 0"), "\(end)")
        }
    }
}
