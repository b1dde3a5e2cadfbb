import Foundation

/// What a finished subprocess left: its exit status and everything it wrote.
public struct ProcessOutput: Sendable, CustomStringConvertible {
    /// The exit status (or the signal number when ``terminatedBySignal``).
    public var status: Int32
    /// Whether the process was ended by a signal rather than exiting.
    public var terminatedBySignal: Bool
    /// Standard output, decoded as UTF-8.
    public var stdout: String
    /// Standard error, decoded as UTF-8.
    public var stderr: String

    /// The non-empty lines of standard error.
    public var stderrLines: [Substring] {
        stderr.split(separator: "\n", omittingEmptySubsequences: true)
    }

    /// Creates an output.
    public init(status: Int32, terminatedBySignal: Bool, stdout: String, stderr: String) {
        self.status = status
        self.terminatedBySignal = terminatedBySignal
        self.stdout = stdout
        self.stderr = stderr
    }

    /// The status and both outputs, for test failure messages.
    public var description: String {
        "status \(status)\(terminatedBySignal ? " (signal)" : "")\nstdout:\n\(stdout)\nstderr:\n\(stderr)"
    }
}

/// Runs `executable` with `arguments` to its end (a ``SpawnedProcess``) and returns its status
/// and output.
///
/// Standard output and error go to temporary files (a process writing a lot never blocks on a
/// full pipe); standard input is `stdin` when given, else empty (`/dev/null`), so the process
/// never sees a terminal.
///
/// - Parameters:
///   - executable: The program to run.
///   - arguments: Its arguments.
///   - stdin: What it reads on standard input, or `nil` for none.
///   - environment: Its environment, or `nil` to inherit this process's.
///   - currentDirectory: Its working directory, or `nil` to inherit this process's.
///   - signalOnCancel: A signal sent to the child when the calling task is cancelled while it
///     runs (`SIGKILL`: a test's time limit ends a hung child rather than waiting for it for
///     ever), or `nil` to wait for the child's end regardless, as a clean-up that must finish
///     even in a cancelled task wants.
/// - Throws: When the program cannot be started or its output cannot be read.
public func runProcess(
    _ executable: URL, arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil,
    currentDirectory: URL? = nil, signalOnCancel: Int32? = nil
) async throws -> ProcessOutput {
    try await ProcessRun(
        executable, arguments: arguments, stdin: stdin, environment: environment, currentDirectory: currentDirectory
    ).output(signalingOnCancel: signalOnCancel)
}

/// ``runProcess(_:arguments:stdin:environment:currentDirectory:signalOnCancel:)`` for synchronous
/// callers (a clean-up in a `defer`, a synchronous test): blocks the calling thread until the
/// program has ended.
public func runProcessBlocking(_ executable: URL, arguments: [String]) throws -> ProcessOutput {
    try ProcessRun(executable, arguments: arguments).outputBlocking()
}

/// A started ``SpawnedProcess`` with its standard output and error in temporary files, its input
/// from `stdin` or `/dev/null`: the one set-up of the two runners above.
private struct ProcessRun {
    let scratch: TemporaryDirectory
    let child: SpawnedProcess
    let outputURL: URL
    let errorURL: URL

    init(
        _ executable: URL, arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil,
        currentDirectory: URL? = nil
    ) throws {
        let scratch = try TemporaryDirectory(prefix: "rewind-process")
        self.scratch = scratch
        outputURL = scratch.url.appendingPathComponent("stdout")
        errorURL = scratch.url.appendingPathComponent("stderr")
        let inputURL = scratch.url.appendingPathComponent("stdin")
        do {
            for url in [outputURL, errorURL] where !FileManager.default.createFile(atPath: url.path, contents: nil) {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
            let output = try FileHandle(forWritingTo: outputURL)
            defer { try? output.close() }
            let error = try FileHandle(forWritingTo: errorURL)
            defer { try? error.close() }
            if let stdin { try stdin.write(to: inputURL) }
            let input = try FileHandle(forReadingFrom: stdin == nil ? URL(fileURLWithPath: "/dev/null") : inputURL)
            defer { try? input.close() }
            // The child has its own copies of the descriptors once started: this process's close here.
            child = try SpawnedProcess(
                executable.path, arguments: arguments, environment: environment,
                currentDirectory: currentDirectory?.path, stdin: input.fileDescriptor, stdout: output.fileDescriptor,
                stderr: error.fileDescriptor)
        } catch {
            scratch.remove()
            throw error
        }
    }

    /// Waits for the child's end (sending it `signal`, if any, when the calling task is
    /// cancelled), then reads what it wrote and removes the files.
    func output(signalingOnCancel signal: Int32?) async throws -> ProcessOutput {
        defer { scratch.remove() }
        let exit =
            if let signal { await child.waitForExit(signalingOnCancel: signal) } else { await child.waitForExit() }
        return try read(exit)
    }

    /// ``output(signalingOnCancel:)`` blocking the calling thread, for synchronous callers.
    func outputBlocking() throws -> ProcessOutput {
        defer { scratch.remove() }
        return try read(child.waitUntilExit())
    }

    private func read(_ exit: SpawnedProcess.Exit) throws -> ProcessOutput {
        ProcessOutput(
            status: exit.code, terminatedBySignal: exit.signaled,
            stdout: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
    }
}
