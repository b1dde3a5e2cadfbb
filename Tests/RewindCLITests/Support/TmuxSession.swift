import Foundation
import RewindTestSupport

/// A command running in a detached tmux session of its own tmux server (its own socket), so a
/// test can drive it as a terminal: send keys, read the screen.
struct TmuxSession {
    /// tmux failed.
    struct Failure: Error, CustomStringConvertible {
        var arguments: [String]
        var output: ProcessOutput
        var description: String { "tmux \(arguments.joined(separator: " ")): \(output)" }
    }

    let tmux: URL
    let socket: String
    let name = "replay"

    /// tmux, or `nil` when it is not installed.
    static var executable: URL? { BuiltProduct.onPath(named: "tmux") }

    /// Starts `command` (a shell command line) in a `width`×`height` terminal.
    init(tmux: URL, command: String, width: Int = 120, height: Int = 30) async throws {
        self.tmux = tmux
        socket = "rewind-test-\(UUID().uuidString.prefix(8))"
        try await run(["new-session", "-d", "-s", name, "-x", String(width), "-y", String(height), command])
    }

    /// Runs `body` with `command` started in a new session, then ends the session whatever
    /// `body` did.
    static func with<Result>(
        tmux: URL, command: String, width: Int = 120, height: Int = 30, _ body: (TmuxSession) async throws -> Result
    ) async throws -> Result {
        let session = try await TmuxSession(tmux: tmux, command: command, width: width, height: height)
        do {
            let result = try await body(session)
            await session.close()
            return result
        } catch {
            await session.close()
            throw error
        }
    }

    /// Sends keys by tmux name (`Right`, `Home`, `Enter`, `g`, `3`…).
    func send(_ keys: String...) async throws {
        try await run(["send-keys", "-t", name] + keys)
    }

    /// Types `text` as is (bytes of escape sequences included).
    func sendLiteral(_ text: String) async throws {
        try await run(["send-keys", "-t", name, "-l", text])
    }

    /// Resizes the terminal to `width`×`height` (the program gets SIGWINCH).
    func resize(width: Int, height: Int) async throws {
        try await run(["resize-window", "-t", name, "-x", String(width), "-y", String(height)])
    }

    /// A tmux format of the pane (`#{cursor_flag}`, `#{alternate_on}`…).
    func display(_ format: String) async throws -> String {
        try await run(["display-message", "-p", "-t", name, format]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The visible screen.
    func screen() async throws -> String {
        try await run(["capture-pane", "-p", "-t", name]).stdout
    }

    /// Polls the screen until `condition` holds (returning it) or `timeout` passes (returning the
    /// last screen, which then fails the caller's check).
    func waitForScreen(timeout: Duration = .seconds(180), until condition: (String) -> Bool) async throws -> String {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var last = ""
        while clock.now < deadline {
            last = try await screen()
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(40))
        }
        return last
    }

    /// Ends the session's tmux server (and the command, if still running).
    func close() async {
        _ = try? await runProcess(tmux, arguments: ["-L", socket, "kill-server"])
    }

    @discardableResult
    private func run(_ arguments: [String]) async throws -> ProcessOutput {
        let output = try await runProcess(tmux, arguments: ["-L", socket] + arguments)
        guard output.status == 0 else { throw Failure(arguments: arguments, output: output) }
        return output
    }
}
