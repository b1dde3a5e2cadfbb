import Foundation
import RewindBaseTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `scripts/with-postgres.sh` itself: a run killed before it could stop its clusters (`kill -9`, as
/// a cancelled CI job) leaves them running, its own and a test's in `REWIND_TEST_PG_CLUSTERS`; the
/// next run stops and removes them; a port taken between its probe and its start is passed over.
/// (It runs inside the suite's own run, which it leaves alone.)
@Suite(.timeLimit(.minutes(5))) struct WithPostgresScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/with-postgres.sh").path

    /// What the killed run's command does: a cluster of a test's own in `REWIND_TEST_PG_CLUSTERS`
    /// (unix socket only), then a line naming both data directories and its own process (which
    /// becomes `sleep`), and it waits.
    static let command = """
        set -e
        cluster="$REWIND_TEST_PG_CLUSTERS/own"
        mkdir "$cluster"
        run=()
        if [ "$(id -u)" = 0 ]; then chown postgres: "$cluster"; run=(runuser -u postgres --); fi
        "${run[@]}" "$REWIND_TEST_PG_BIN/initdb" -D "$cluster/data" -U postgres -A trust --no-sync >/dev/null
        "${run[@]}" "$REWIND_TEST_PG_BIN/pg_ctl" -D "$cluster/data" -l "$cluster/log" -w \
            -o "-c listen_addresses= -k $cluster" start >/dev/null
        echo "$REWIND_TEST_PG_DATA $cluster/data $$"
        exec sleep 3600
        """

    @Test func aRunKilledWithItsClustersRunningIsCleanedUpByTheNext() async throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw POSIXError(.EIO) }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(null) }
        let killed: SpawnedProcess
        do {
            defer { close(ends[1]) }
            killed = try SpawnedProcess(
                "/bin/bash", arguments: [Self.script, "/bin/bash", "-c", Self.command], stdin: null, stdout: ends[1],
                stderr: null)
        }
        let lines = LineReader(readingAndClosing: ends[0])
        var iterator = lines.stream.makeAsyncIterator()
        let line = try #require(await iterator.next(), "the killed run's command printed nothing")
        let fields = line.split(separator: " ").map(String.init)
        try #require(fields.count == 3, "\(line)")
        let (own, tests, sleeper) = (fields[0], fields[1], try #require(Int32(fields[2])))
        let run = URL(fileURLWithPath: own).deletingLastPathComponent().path
        #expect(tests.hasPrefix(run + "/clusters/"))
        // kill -9: no trap runs; both clusters go on.
        killed.send(SIGKILL)
        kill(sleeper, SIGKILL)
        _ = await killed.waitForExit()
        let postmasters = try [own, tests].map { data in
            let pidFile = try String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8)
            return try #require(pidFile.split(separator: "\n").first.flatMap { Int32($0) }, "\(data)")
        }
        for pid in postmasters { #expect(kill(pid, 0) == 0, "postmaster \(pid) runs") }

        let next = try await runProcess(
            URL(fileURLWithPath: "/bin/bash"), arguments: [Self.script, "/bin/true"], signalOnCancel: SIGKILL)
        #expect(next.status == 0, "\(next)")
        #expect(next.stderr.contains("removing \(run)"), "\(next.stderr)")
        #expect(!FileManager.default.fileExists(atPath: run))
        // `pg_ctl stop -w` returned once each postmaster removed its pid file, as it ends: wait for
        // the process to be gone (or a zombie its new parent has not reaped yet).
        for pid in postmasters {
            try await withDeadline(.seconds(60), { "end of postmaster \(pid)" }) {
                while Self.runs(pid) { try await Task.sleep(for: .milliseconds(10)) }
            }
        }
    }

    /// A port of the script's range that nothing answers on (its probe's test) but that PostgreSQL
    /// cannot bind, as when another cluster takes it between the probe and the start: the script
    /// tries the next port. The port is held by a socket bound without `listen`, which refuses the
    /// probe's connection and, lacking `SO_REUSEADDR`, keeps PostgreSQL's `bind` out.
    @Test func aPortTakenBetweenTheProbeAndTheStartIsPassedOver() async throws {
        let port = try #require(
            (UInt16(54329)...54420).first { !Self.answers($0) }, "a port of 54329–54420 where nothing answers")
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(holder >= 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0, "bind 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        #expect(!Self.answers(port))

        let run = try await runProcess(
            URL(fileURLWithPath: "/bin/bash"),
            arguments: [Self.script, "/bin/bash", "-c", "echo \"$REWIND_TEST_DATABASE_URL\""], signalOnCancel: SIGKILL)
        #expect(run.status == 0, "\(run)")
        let chosen = run.stdout.split(separator: ":").last.flatMap { UInt16($0.prefix { $0.isNumber }) }
        let used = try #require(chosen, "\(run.stdout)")
        #expect(used > port, "the script's cluster listened on \(used), the held port is \(port)")
    }

    /// Whether something accepts a TCP connection on `127.0.0.1:port` (the script's probe).
    static func answers(_ port: UInt16) -> Bool {
        guard let connected = try? connectToLoopback(port: Int(port)) else { return false }
        close(connected)
        return true
    }

    /// Whether process `pid` exists and is not a zombie (its state in `/proc/PID/stat`, after the
    /// command's parenthesis).
    static func runs(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }
}
