import Foundation
import RewindTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A running `RewindTestHelper` (see `Tests/RewindTestHelper/`) whose stdout is collected as it
/// comes, so the test can wait for a line, kill it with SIGKILL at any moment and read every
/// line it completed before dying.
final class HelperProcess: Sendable {
    /// Why a helper could not run.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The helper executable, next to the test bundle in the build folder.
    static func executableURL() throws -> URL {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for directory in candidates {
            let url = directory.appendingPathComponent("RewindTestHelper")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw Failure(
            description:
                "RewindTestHelper was not found next to the test bundle: build it with `swift build --build-tests`")
    }

    private let process: Process
    /// Every byte the helper wrote to stdout so far, and whether it closed it.
    private let output = LockedBox((bytes: [UInt8](), closed: false))
    /// The exit status, once it ended.
    private let status = LockedBox<(reason: Process.TerminationReason, code: Int32)?>(nil)

    /// Starts the helper with `arguments`.
    init(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = try Self.executableURL()
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        let status = status
        process.terminationHandler = { process in
            status.withValue { $0 = (process.terminationReason, process.terminationStatus) }
        }
        try process.run()
        self.process = process
        let output = output
        let reading = pipe.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let data = reading.availableData
                if data.isEmpty { break }
                output.withValue { $0.bytes.append(contentsOf: data) }
            }
            output.withValue { $0.closed = true }
        }
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }

    /// Whether the helper has ended (its exit status is known).
    var hasExited: Bool { status.current != nil }

    /// Every complete (newline-terminated) line written so far.
    var lines: [String] {
        let bytes = output.current.bytes
        guard let end = bytes.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        return String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Waits until a line satisfying `predicate` was written (or the helper ended, or `timeout`
    /// passed); returns it.
    func waitForLine(timeout: Duration = .seconds(180), where predicate: (String) -> Bool) async throws -> String? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if let line = lines.first(where: predicate) { return line }
            if output.current.closed { return nil }
            try await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    /// Sends SIGKILL.
    func kill() {
        sendSignal(SIGKILL, to: process.processIdentifier)
    }

    /// Waits until the helper ended and its stdout is read to the end; returns how it ended.
    func waitForExit(timeout: Duration = .seconds(300)) async throws -> (reason: Process.TerminationReason, code: Int32)
    {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if let status = status.current, output.current.closed { return status }
            try await Task.sleep(for: .milliseconds(2))
        }
        kill()
        throw Failure(description: "the helper \(process.arguments ?? []) did not end within \(timeout)")
    }
}

/// `kill(2)` (a free function: inside ``HelperProcess`` the name is its own method's).
private func sendSignal(_ signal: Int32, to pid: Int32) {
    _ = kill(pid, signal)
}
