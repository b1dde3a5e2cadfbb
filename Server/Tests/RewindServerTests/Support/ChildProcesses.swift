import Foundation
import PostgresNIO
import RewindServer

/// Runs `executable` with `arguments` to its end and returns its exit status and output (both
/// streams), without blocking a thread of the cooperative pool.
///
/// Not `Foundation.Process`: on Linux it learns that a child ended when a socket it hands the
/// child reaches end of file, and a daemon the child starts (`pg_ctl start` starts PostgreSQL)
/// inherits that socket, so the child's end would only be seen when the daemon stops. Here the
/// child inherits standard input (`/dev/null`), output and error (a temporary file) and no other
/// descriptor, its end is `waitpid`'s answer on a thread of its own, and its output is read
/// from the file once it has ended (a daemon holding the file cannot delay that).
func runToEnd(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
    let outputPath = NSTemporaryDirectory() + "rewind-child-output-" + UUID().uuidString
    let output = open(outputPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard output >= 0 else { throw SpawnError(executable: executable, code: errno) }
    defer {
        close(output)
        unlink(outputPath)
    }
    #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
    #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, output, 1)
    posix_spawn_file_actions_adddup2(&actions, output, 2)
    #if canImport(Darwin)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
    #else
        // Every other open descriptor is closed in the child (glibc ignores one closed meanwhile).
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in descriptors.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    #endif
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    guard spawned == 0 else { throw SpawnError(executable: executable, code: spawned) }
    let child = pid
    let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
        Thread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1, errno == EINTR {}
            continuation.resume(returning: status)
        }.start()
    }
    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    // Exited: its code; killed by a signal: 128 + the signal, as a shell says.
    let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + status & 0x7f
    return (exitStatus, text.hasSuffix("\n") ? String(text.dropLast()) : text)
}

/// Waits for `process` to end, on a thread of its own; when the caller is cancelled (the suite's
/// time limit), it kills `process` (SIGKILL) first, so no test waits on a child forever.
func waitForExit(_ process: Process) async {
    await withTaskCancellationHandler {
        _ = try? await onThread { process.waitUntilExit() }
    } onCancel: {
        kill(process.processIdentifier, SIGKILL)
    }
}

/// What `pipe` delivers until its end (`process`, its writer, ended), read on a thread of its own;
/// when the caller is cancelled (the suite's time limit), `process` is killed so that the end comes.
func readToEnd(_ pipe: Pipe, of process: Process) async throws -> Data {
    try await withTaskCancellationHandler {
        try await onThread { pipe.fileHandleForReading.readDataToEndOfFile() }
    } onCancel: {
        kill(process.processIdentifier, SIGKILL)
    }
}

/// A child process that could not be started.
struct SpawnError: Error, CustomStringConvertible {
    var executable: String
    var code: Int32
    var description: String { "cannot run \(executable): \(String(cString: strerror(code)))" }
}

/// The built `rewind-server serve` as a child process on a test database, so a test can
/// `kill -9` it; its app and keys created in that database.
final class ServerProcess {
    let process: Process
    let port: Int
    /// Standard error's lines after "listening".
    let lines: LineReader

    /// Starts `rewind-server serve` on `database`, on `port` (0: a free one), and waits until it
    /// listens.
    static func start(database: TestDatabase, port: Int = 0) async throws -> ServerProcess {
        let process = Process()
        process.executableURL = try ExecutableTests.executable()
        process.arguments = ["serve", "--port", "\(port)"]
        process.environment = ["DATABASE_URL": ExecutableTests.url(database), "LOG_LEVEL": "info"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let lines = LineReader(errors.fileHandleForReading)
        try process.run()
        var iterator = lines.stream.makeAsyncIterator()
        var seen: [String] = []
        while let line = await iterator.next() {
            seen.append(line)
            if line.contains("listening"), let range = line.range(of: #"port=\d+"#, options: .regularExpression),
                let listening = Int(line[range].dropFirst("port=".count))
            {
                return ServerProcess(process: process, port: listening, lines: lines)
            }
        }
        await waitForExit(process)
        throw StartError(output: seen.joined(separator: "\n"))
    }

    struct StartError: Error, CustomStringConvertible {
        var output: String
        var description: String { "rewind-server did not start:\n\(output)" }
    }

    private init(process: Process, port: Int, lines: LineReader) {
        self.process = process
        self.port = port
        self.lines = lines
    }

    /// `kill -9`: the server dies wherever it is (mid-request, mid-transaction).
    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// A PostgreSQL cluster of one test's own (initdb in a temporary directory, 127.0.0.1 only), so
/// the test can restart it without disturbing the other tests' cluster. Uses the binaries
/// `Server/scripts/with-postgres.sh` found (`REWIND_TEST_PG_BIN`); as root it runs as `postgres`.
final class PrivateCluster: Sendable {
    let directory: String
    let port: Int
    let bin: String
    let runAs: [String]

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    var url: DatabaseURL {
        get throws { try DatabaseURL("postgres://postgres@127.0.0.1:\(port)/postgres") }
    }

    static func start() async throws -> PrivateCluster {
        guard let bin = ProcessInfo.processInfo.environment["REWIND_TEST_PG_BIN"] else {
            throw Unavailable(
                description:
                    "REWIND_TEST_PG_BIN is not set: run the server's tests with Server/scripts/with-postgres.sh")
        }
        let directory = NSTemporaryDirectory() + "rewind-private-pg-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var runAs: [String] = []
        if getuid() == 0 {
            let chown = try await runToEnd("/bin/chown", ["postgres:", directory])
            guard chown.status == 0 else { throw Unavailable(description: "chown: \(chown.output)") }
            runAs = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        }
        let port = try TCPProxy.freePort()
        let cluster = PrivateCluster(directory: directory, port: port, bin: bin, runAs: runAs)
        let initdb = try await cluster.run(
            "initdb",
            ["-D", "\(directory)/data", "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"])
        guard initdb.status == 0 else { throw Unavailable(description: "initdb: \(initdb.output)") }
        try await cluster.start()
        return cluster
    }

    private init(directory: String, port: Int, bin: String, runAs: [String]) {
        self.directory = directory
        self.port = port
        self.bin = bin
        self.runAs = runAs
    }

    private func run(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let command = runAs + ["\(bin)/\(tool)"] + arguments
        return try await runToEnd(command[0], Array(command.dropFirst()))
    }

    /// `pg_ctl ARGUMENTS` on this cluster (waiting for it to finish), throwing its output on failure.
    func pgCtl(_ arguments: [String]) async throws {
        let result = try await run(
            "pg_ctl", ["-D", "\(directory)/data", "-l", "\(directory)/postgres.log", "-w"] + arguments)
        guard result.status == 0 else {
            throw Unavailable(description: "pg_ctl \(arguments.joined(separator: " ")): \(result.output)")
        }
    }

    /// Starts PostgreSQL (waiting until it accepts connections).
    func start() async throws {
        try await pgCtl([
            "start", "-o",
            "-c listen_addresses=127.0.0.1 -p \(port) -k \(directory) -c fsync=off -c max_connections=100",
        ])
    }

    /// Stops PostgreSQL at once, aborting every transaction and dropping every connection
    /// (`-m immediate`: as a crash); ``start()`` recovers it.
    func stopImmediately() async throws {
        try await pgCtl(["-m", "immediate", "stop"])
    }

    /// Stops PostgreSQL at once, aborting every transaction (`-m immediate`: as a crash), and starts
    /// it again (crash recovery).
    func restart() async throws {
        try await pgCtl(["-m", "immediate", "restart"])
    }

    /// Stops the cluster and removes its directory.
    func remove() async {
        try? await pgCtl(["-m", "immediate", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }
}
