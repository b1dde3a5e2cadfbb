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

    private let process: SpawnedProcess
    private let arguments: [String]
    /// Every byte the helper wrote to stdout so far, and whether it closed it.
    private let output = LockedBox((bytes: [UInt8](), closed: false))

    /// Starts the helper with `arguments` (a ``SpawnedProcess``: Foundation's `Process.run()`
    /// crashed here with many descriptors open).
    init(_ arguments: [String]) throws {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
        let null = open("/dev/null", O_RDONLY)
        defer {
            close(pipeEnds[1])
            if null >= 0 { close(null) }
        }
        let reading = FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true)
        process = try SpawnedProcess(
            try Self.executableURL().path, arguments: arguments, stdin: null, stdout: pipeEnds[1],
            stderr: FileHandle.standardError.fileDescriptor)
        self.arguments = arguments
        let output = output
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
    var pid: Int32 { process.pid }

    /// Whether the helper has ended (its exit status is known).
    var hasExited: Bool { process.exit != nil }

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
        process.send(SIGKILL)
    }

    /// Waits until the helper ended and its stdout is read to the end; returns how it ended.
    func waitForExit(timeout: Duration = .seconds(300)) async throws -> (reason: Process.TerminationReason, code: Int32)
    {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if let exit = process.exit, output.current.closed {
                return (exit.signaled ? .uncaughtSignal : .exit, exit.code)
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        kill()
        throw Failure(description: "the helper \(arguments) did not end within \(timeout)")
    }
}
