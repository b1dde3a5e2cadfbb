import Foundation
import RewindTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Running a program that leaves a daemon behind (tmux's `new-session` starts the tmux server).
///
/// Foundation's `Process` is not fit for that: on Linux it learns that a child ended when a socket
/// the child inherited closes, so a daemon that inherits the socket (the tmux server) makes it
/// wait forever; and the child inherits the calling thread's blocked signals, so the daemon would
/// ignore `SIGTERM`. Here the program is spawned with no blocked signals and default handlers,
/// through `bash`, which closes every inherited descriptor above standard error before running
/// it, and its end is learnt with `waitpid`.
enum DaemonSafeProcess {
    /// The program could not be started.
    struct SpawnFailure: Error, CustomStringConvertible {
        var program: String
        var code: Int32
        var description: String { "cannot start \(program): \(String(cString: strerror(code)))" }
    }

    /// Runs `executable` with `arguments` to its end (not its daemons').
    static func run(_ executable: URL, arguments: [String]) async throws -> ProcessOutput {
        let scratch = try TemporaryDirectory(prefix: "rewind-spawn")
        defer { scratch.remove() }
        let outputPath = scratch.url.appendingPathComponent("stdout").path
        let errorPath = scratch.url.appendingPathComponent("stderr").path
        let script =
            #"for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done 2>/dev/null; exec "$@""#
        let pid = try spawn(
            "/bin/bash", ["-c", script, "bash", executable.path] + arguments, stdout: outputPath, stderr: errorPath)
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1, errno == EINTR {}
                continuation.resume(returning: status)
            }.start()
        }
        let signalled = status & 0x7F != 0
        return ProcessOutput(
            status: signalled ? status & 0x7F : (status >> 8) & 0xFF, terminatedBySignal: signalled,
            stdout: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }

    private static func spawn(_ path: String, _ arguments: [String], stdout: String, stderr: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD, SIGWINCH, SIGUSR1, SIGUSR2] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        let code = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard code == 0 else { throw SpawnFailure(program: path, code: code) }
        return pid
    }
}
