import Foundation
import PostgresNIO
import RewindBaseTestSupport
import RewindServer

/// The built `rewind-server serve` as a child process on a test database (a ``SpawnedProcess``),
/// so a test can `kill -9` it; its app and keys created in that database.
final class ServerProcess: Sendable {
    let process: SpawnedProcess
    let port: Int
    /// Standard error's lines after "listening".
    let lines: LineReader

    /// Starts `rewind-server serve` on `database`, on `port` (0: a free one), and waits until it
    /// listens.
    static func start(database: TestDatabase, port: Int = 0) async throws -> ServerProcess {
        let executable = try ExecutableTests.executable()
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw StartError(output: "pipe: \(String(cString: strerror(errno)))") }
        let process: SpawnedProcess
        do {
            let null = open("/dev/null", O_RDWR)
            // The child has its own copy of the write end: standard error ends when the server does.
            defer {
                close(ends[1])
                if null >= 0 { close(null) }
            }
            guard null >= 0 else { throw StartError(output: "/dev/null: \(String(cString: strerror(errno)))") }
            process = try SpawnedProcess(
                executable.path, arguments: ["serve", "--port", "\(port)"],
                environment: ["DATABASE_URL": ExecutableTests.url(database), "LOG_LEVEL": "info"], stdin: null,
                stdout: null, stderr: ends[1])
        } catch {
            close(ends[0])
            throw error
        }
        let lines = LineReader(readingAndClosing: ends[0])
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
        // Standard error ended: it has ended or is ending (or the caller was cancelled: killed).
        _ = await process.waitForExit(signalingOnCancel: SIGKILL)
        throw StartError(output: seen.joined(separator: "\n"))
    }

    struct StartError: Error, CustomStringConvertible {
        var output: String
        var description: String { "rewind-server did not start:\n\(output)" }
    }

    private init(process: SpawnedProcess, port: Int, lines: LineReader) {
        self.process = process
        self.port = port
        self.lines = lines
    }

    /// `kill -9`: the server dies wherever it is (mid-request, mid-transaction); returns once it
    /// has ended. Nothing is sent to a server that has ended already (its process id may be
    /// another's by now).
    func kill9() async {
        if process.exit == nil { process.send(SIGKILL) }
        _ = await process.waitForExit()
    }

    /// Runs `body`, then kills the server (``kill9()``) whether `body` returned or threw: a test
    /// leaves no server behind, and `defer` cannot await its end.
    func killing<T>(after body: () async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body()
        } catch {
            await kill9()
            throw error
        }
        await kill9()
        return result
    }
}

/// The lines a pipe delivers, read on a thread of its own, as an async stream (ends at end of
/// file, after which the descriptor is closed).
final class LineReader: Sendable {
    let stream: AsyncStream<String>

    /// Reads `descriptor` (the read end of a pipe, now the reader's) until its end, then closes it.
    init(readingAndClosing descriptor: Int32) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        self.stream = stream
        Thread.detachNewThread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                pending += buffer[..<count]
                while let newline = pending.firstIndex(of: 10) {
                    continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            close(descriptor)
            if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
            continuation.finish()
        }
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
        // In with-postgres.sh's run directory, which stops the cluster with its own however the
        // tests end.
        let parent = ProcessInfo.processInfo.environment["REWIND_TEST_PG_CLUSTERS"].map { $0 + "/" }
        let directory = (parent ?? NSTemporaryDirectory()) + "rewind-private-pg-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var runAs: [String] = []
        if getuid() == 0 {
            let chown = try await runProcess(URL(fileURLWithPath: "/bin/chown"), arguments: ["postgres:", directory])
            guard chown.status == 0 else { throw Unavailable(description: "chown: \(chown)") }
            runAs = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        }
        let port = try TCPProxy.freePort()
        let cluster = PrivateCluster(directory: directory, port: port, bin: bin, runAs: runAs)
        let initdb = try await cluster.run(
            "initdb",
            ["-D", "\(directory)/data", "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"])
        guard initdb.status == 0 else { throw Unavailable(description: "initdb: \(initdb)") }
        try await cluster.start()
        return cluster
    }

    private init(directory: String, port: Int, bin: String, runAs: [String]) {
        self.directory = directory
        self.port = port
        self.bin = bin
        self.runAs = runAs
    }

    /// Runs `tool` of the cluster's binaries with `arguments` to its end (a ``SpawnedProcess``: it
    /// inherits no descriptor but its standard streams, so a daemon it starts, as `pg_ctl start`
    /// starts PostgreSQL, holds nothing whose end is awaited). Its status is 0 only when it exited
    /// with 0 (no signal is numbered 0).
    private func run(_ tool: String, _ arguments: [String]) async throws -> ProcessOutput {
        let command = runAs + ["\(bin)/\(tool)"] + arguments
        return try await runProcess(URL(fileURLWithPath: command[0]), arguments: Array(command.dropFirst()))
    }

    /// `pg_ctl ARGUMENTS` on this cluster (waiting for it to finish), throwing its output on failure.
    func pgCtl(_ arguments: [String]) async throws {
        let result = try await run(
            "pg_ctl", ["-D", "\(directory)/data", "-l", "\(directory)/postgres.log", "-w"] + arguments)
        guard result.status == 0 else {
            throw Unavailable(description: "pg_ctl \(arguments.joined(separator: " ")): \(result)")
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
