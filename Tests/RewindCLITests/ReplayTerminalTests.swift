import Foundation
import RewindTestSupport
import Testing

/// `rewind replay` on terminals of different sizes (tmux panes): keys that are not the replay's
/// do nothing, the screen fits and follows resizes, every way out restores the terminal, and a
/// non-UTF-8 locale gets ASCII.
struct ReplayTerminalTests {
    /// The version and head of the timeline line (`[━━●──] 3/17`) of a screen.
    static func timelineVersion(_ screen: String) -> (version: UInt64, head: UInt64)? {
        guard let line = screen.split(separator: "\n").first(where: { $0.hasPrefix("[") && $0.contains("] ") }),
            let label = line.split(separator: " ").last
        else { return nil }
        let parts = label.split(separator: "/").compactMap { UInt64($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// A demo store and its longest Kanji session, and a shell command line that runs `replay` on
    /// it (with `prefix`, e.g. an environment assignment), then prints its exit status and the
    /// terminal's modes, then waits.
    struct Setup {
        var demo: DemoStore
        var session: String
        var head: UInt64
        var pidFile: String

        static func make() async throws -> Setup {
            let demo = try await DemoStore.make()
            let sessions = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
            guard let row = sessions.max(by: { $0.version < $1.version }), row.version >= 4 else {
                demo.remove()
                throw NoLongSession()
            }
            return Setup(demo: demo, session: row.session, head: row.version, pidFile: demo.file("replay.pid"))
        }

        func command(prefix: String = "") -> String {
            "sh -c 'echo $$ > \"\(pidFile)\"; exec \(prefix) \"\(demo.tool.executable.path)\" replay \(session) --store \"\(demo.tool.store)\"'; "
                + "echo \"exited with status $?\"; "
                + "echo \"modes: $(stty -a | tr ' ;' '\\n\\n' | grep -x -e '-\\?icanon' -e '-\\?echo' | tr '\\n' ' ')\"; sleep 60"
        }
    }

    private func requireTmux() throws -> URL {
        guard let tmux = TmuxSession.executable else { throw TmuxMissing() }
        return tmux
    }
    struct TmuxMissing: Error {}
    struct NoLongSession: Error {}

    /// The `lines A-B of C` position line of a screen.
    static func position(_ screen: String) -> (first: Int, last: Int, total: Int)? {
        guard let line = screen.split(separator: "\n").first(where: { $0.hasPrefix("lines ") }) else { return nil }
        let numbers = line.dropFirst("lines ".count).split(whereSeparator: { !$0.isNumber }).prefix(3).compactMap {
            Int($0)
        }
        return numbers.count == 3 ? (numbers[0], numbers[1], numbers[2]) : nil
    }

    @Test(.hangGuard, .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
    func keysThatAreNotTheReplaysDoNothingAndDoNotQuit() async throws {
        let tmux = try requireTmux()
        let setup = try await Setup.make()
        defer { setup.demo.remove() }
        try await TmuxSession.with(tmux: tmux, command: setup.command(), width: 100, height: 30) { terminal in
            let first = try await terminal.waitForScreen {
                Self.timelineVersion($0)?.version == 1 && $0.contains("q quit")
            }
            #expect(Self.timelineVersion(first)?.version == 1, "\(first)")
            try await terminal.send("Right")
            _ = try await terminal.waitForScreen { Self.timelineVersion($0)?.version == 2 }
            // Each of these quit (or jumped to version 1) before; now none changes the version.
            for keys in [["Up"], ["Down"], ["PPage"], ["NPage"], ["DC"], ["Escape"], ["F5"]] {
                try await terminal.send(keys[0])
            }
            try await terminal.sendLiteral("\u{1B}[1;5C")  // Ctrl+→
            try await terminal.sendLiteral("\u{1B}[1;2D")  // Shift+←
            // A marker key after them: when it shows, every key before it was read.
            try await terminal.send("Right")
            let after = try await terminal.waitForScreen {
                Self.timelineVersion($0)?.version == 3 || $0.contains("exited")
            }
            #expect(Self.timelineVersion(after)?.version == 3, "the keys changed the version or quit:\n\(after)")
            try await terminal.send("q")
            let end = try await terminal.waitForScreen { $0.contains("modes:") }
            #expect(end.contains("exited with status 0"), "\(end)")
        }
    }

    @Test(.hangGuard, .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
    func aSmallTerminalKeepsHeaderAndTimelineAndPagesTheStateAndAResizeRedraws() async throws {
        let tmux = try requireTmux()
        let setup = try await Setup.make()
        defer { setup.demo.remove() }
        try await TmuxSession.with(tmux: tmux, command: setup.command(), width: 40, height: 10) { terminal in
            let first = try await terminal.waitForScreen { Self.timelineVersion($0)?.version == 1 }
            try await terminal.send("End")
            let small = try await terminal.waitForScreen {
                Self.timelineVersion($0)?.version == setup.head && $0.contains("lines 1-")
            }
            let lines = small.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(
                lines.first?.hasPrefix("version \(setup.head) of \(setup.head)") == true, "header:\n\(small)\n\(first)")
            #expect(
                lines.count >= 2 && lines[1].hasPrefix("[") && lines[1].hasSuffix("] \(setup.head)/\(setup.head)"),
                "\(small)")
            #expect(small.contains("q quit"), "\(small)")
            #expect(small.contains("lines 1-6 of "), "the state is paged:\n\(small)")
            #expect(!small.contains("what changed:"), "beyond the first page:\n\(small)")

            // Page down until the diff shows: the header and timeline stay.
            try await terminal.send("NPage")
            let paged = try await terminal.waitForScreen { !$0.contains("lines 1-") }
            #expect(Self.position(paged)?.first == 6, "PgDn moves a page less one line:\n\(paged)")
            #expect(paged.hasPrefix("version \(setup.head) of"), "\(paged)")
            try await terminal.send("NPage", "NPage", "NPage")
            let bottom = try await terminal.waitForScreen { Self.position($0).map { $0.last == $0.total } ?? false }
            let last = try #require(Self.position(bottom), "\(bottom)")
            #expect(last.last == last.total, "\(bottom)")
            #expect(Self.timelineVersion(bottom)?.version == setup.head, "\(bottom)")
            try await terminal.send("Up")
            let up = try await terminal.waitForScreen { Self.position($0)?.first == last.first - 1 }
            #expect(Self.position(up)?.first == last.first - 1, "\(up)")

            // Grow: the full header comes back.
            try await terminal.resize(width: 100, height: 30)
            let large = try await terminal.waitForScreen { $0.hasPrefix("rewind replay · ") }
            #expect(
                large.hasPrefix("rewind replay · \(setup.session) (kanji) · version \(setup.head) of \(setup.head)"),
                "\(large)")
            #expect(large.contains("q quit"), "\(large)")
            // Shrink again: redrawn to fit.
            try await terminal.resize(width: 40, height: 10)
            let shrunk = try await terminal.waitForScreen { $0.hasPrefix("version ") }
            #expect(shrunk.split(separator: "\n").allSatisfy { $0.count <= 40 }, "\(shrunk)")
            #expect(Self.timelineVersion(shrunk)?.version == setup.head, "\(shrunk)")
            try await terminal.send("q")
            let end = try await terminal.waitForScreen { $0.contains("modes:") }
            #expect(end.contains("exited with status 0"), "\(end)")
        }
    }

    @Test(.hangGuard, .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
    func ctrlCRestoresTheCursorTheModesAndTheScreen() async throws {
        let tmux = try requireTmux()
        let setup = try await Setup.make()
        defer { setup.demo.remove() }
        try await TmuxSession.with(tmux: tmux, command: setup.command(), width: 100, height: 30) { terminal in
            _ = try await terminal.waitForScreen { Self.timelineVersion($0)?.version == 1 }
            #expect(try await terminal.display("#{cursor_flag}") == "0", "the replay hides the cursor")
            #expect(try await terminal.display("#{alternate_on}") == "1", "the replay draws on the alternate screen")
            try await terminal.send("C-c")
            let end = try await terminal.waitForScreen { $0.contains("modes:") }
            #expect(end.contains("exited with status 130"), "\(end)")
            #expect(end.contains("modes: icanon echo") || end.contains("modes: echo icanon"), "\(end)")
            #expect(try await terminal.display("#{cursor_flag}") == "1", "the cursor is hidden after Ctrl-C")
            #expect(try await terminal.display("#{alternate_on}") == "0")
        }
    }

    @Test(.hangGuard, .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
    func sigtermRestoresTheTerminal() async throws {
        let tmux = try requireTmux()
        let setup = try await Setup.make()
        defer { setup.demo.remove() }
        try await TmuxSession.with(tmux: tmux, command: setup.command(), width: 100, height: 30) { terminal in
            _ = try await terminal.waitForScreen { Self.timelineVersion($0)?.version == 1 }
            let text = try String(contentsOfFile: setup.pidFile, encoding: .utf8)
            let pid = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(kill(pid, SIGTERM) == 0)
            let end = try await terminal.waitForScreen { $0.contains("modes:") }
            #expect(end.contains("exited with status 143"), "\(end)")
            #expect(end.contains("modes: icanon echo") || end.contains("modes: echo icanon"), "\(end)")
            #expect(try await terminal.display("#{cursor_flag}") == "1")
        }
    }

    @Test(.hangGuard, .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
    func aNonUTF8LocaleGetsASCII() async throws {
        let tmux = try requireTmux()
        let setup = try await Setup.make()
        defer { setup.demo.remove() }
        try await TmuxSession.with(tmux: tmux, command: setup.command(prefix: "env LC_ALL=C"), width: 200, height: 30) {
            terminal in
            // Keys sent before the replay is on screen are flushed when it switches the terminal to raw mode.
            _ = try await terminal.waitForScreen { Self.timelineVersion($0)?.version == 1 }
            try await terminal.send("Right")
            let screen = try await terminal.waitForScreen { Self.timelineVersion($0)?.version == 2 }
            #expect(screen.hasPrefix("rewind replay | \(setup.session) (kanji) | version 2 of"), "\(screen)")
            #expect(screen.contains("q quit | Left/Right step"), "\(screen)")
            #expect(screen.contains("[o") || screen.contains("[="), "\(screen)")
            for glyph in ["━", "●", "─", "›", "·", "→", "←", "⇒"] {
                #expect(!screen.contains(glyph), "'\(glyph)' under LC_ALL=C:\n\(screen)")
            }
            try await terminal.send("q")
            _ = try await terminal.waitForScreen { $0.contains("modes:") }
        }
    }

    @Test(.hangGuard, .enabled(if: TmuxSession.executable != nil, "tmux is not installed"))
    func theGoToPromptShowsWhatIsTypedAndRefusesLetters() async throws {
        let tmux = try requireTmux()
        let setup = try await Setup.make()
        defer { setup.demo.remove() }
        try await TmuxSession.with(tmux: tmux, command: setup.command(), width: 100, height: 30) { terminal in
            _ = try await terminal.waitForScreen { Self.timelineVersion($0)?.version == 1 }
            try await terminal.send("g", "3", "x")
            let refused = try await terminal.waitForScreen { $0.contains("is not a digit") }
            #expect(refused.contains("go to version: 3 ('x' is not a digit)"), "\(refused)")
            try await terminal.send("Enter")
            let jumped = try await terminal.waitForScreen { Self.timelineVersion($0)?.version == 3 }
            #expect(Self.timelineVersion(jumped)?.version == 3, "\(jumped)")
            try await terminal.send("q")
            let end = try await terminal.waitForScreen { $0.contains("modes:") }
            #expect(end.contains("exited with status 0"), "\(end)")
        }
    }
}
