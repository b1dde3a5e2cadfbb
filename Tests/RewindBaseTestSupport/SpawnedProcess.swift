import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn`, for the tests that run programs. Foundation's
/// `Process.run()` on Linux reads past a buffer when the test process has many descriptors open
/// (it crashed a CI run in `memmove`); `posix_spawn` copies nothing of the kind.
///
/// The child gets the given descriptors as its standard input, output and error (and, when
/// asked, one more as its descriptor 3), and no other descriptor of this process (on Linux `posix_spawn_file_actions_addclosefrom_np`, or each open
/// one closed where the C library lacks it; on Apple platforms `POSIX_SPAWN_CLOEXEC_DEFAULT`). It
/// starts with no blocked signal and the default handlers, whatever the spawning thread had: a
/// daemon it leaves behind (tmux's server) still ends on `SIGTERM`, and holds no descriptor whose
/// closing someone waits for. A thread of its own waits for it (`waitpid`), never the cooperative
/// pool.
public final class SpawnedProcess: Sendable {
    /// How the child ended.
    public struct Exit: Sendable, Equatable {
        /// The exit status, or the signal's number when ``signaled``.
        public var code: Int32
        /// Whether a signal ended it.
        public var signaled: Bool
    }

    /// Why a child could not be started.
    public struct SpawnError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The child's process id.
    public let pid: pid_t
    private let state = LockedBox<(exit: Exit?, cpuSeconds: Double?, waiters: [CheckedContinuation<Exit, Never>])>(
        (nil, nil, []))
    /// Signalled once the child's end is in `state` (``waitUntilExit()``).
    private let ended = DispatchSemaphore(value: 0)

    /// Starts `executable` with `arguments`, its standard streams on `stdin`, `stdout` and
    /// `stderr`, in `environment` (`nil`: this process's) and `currentDirectory` (`nil`: this
    /// process's); `descriptor3`, when given, becomes the child's descriptor 3 (the open file of
    /// this process's descriptor, shared, as a child has it between its `fork` and its `exec`).
    public init(
        _ executable: String, arguments: [String], environment: [String: String]? = nil,
        currentDirectory: String? = nil, stdin: Int32, stdout: Int32, stderr: Int32, descriptor3: Int32? = nil
    ) throws {
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
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        if let descriptor3 { posix_spawn_file_actions_adddup2(&actions, descriptor3, 3) }
        let firstClosed: Int32 = descriptor3 == nil ? 3 : 4
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD, SIGWINCH, SIGUSR1, SIGUSR2] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #if canImport(Darwin)
            flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
            if let closeFrom = Self.closeFrom {
                _ = closeFrom(&actions, firstClosed)
            } else {
                // Each descriptor open now (the C library skips one closed meanwhile).
                let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
                for descriptor in open.compactMap({ Int32($0) }) where descriptor >= firstClosed {
                    posix_spawn_file_actions_addclose(&actions, descriptor)
                }
            }
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))
        if let currentDirectory {
            guard let changeDirectory = Self.changeDirectory else {
                throw SpawnError(description: "this C library has no posix_spawn_file_actions_addchdir_np")
            }
            _ = changeDirectory(&actions, currentDirectory)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = variables.map { strdup($0) } + [nil]
        defer { for variable in envp { free(variable) } }
        var spawnedID: pid_t = 0
        let spawned = posix_spawn(&spawnedID, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw SpawnError(description: "posix_spawn \(executable): \(String(cString: strerror(spawned)))")
        }
        let pid = spawnedID
        self.pid = pid
        let state = state
        let ended = ended
        Thread.detachNewThread {
            var status: Int32 = 0
            var usage = rusage()
            while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
            // WIFSIGNALED / WTERMSIG / WEXITSTATUS, which Swift does not import.
            let signal = status & 0x7f
            let exit =
                signal == 0 ? Exit(code: (status >> 8) & 0xff, signaled: false) : Exit(code: signal, signaled: true)
            let waiters = state.withValue { state in
                state.exit = exit
                state.cpuSeconds = usage.cpuSeconds
                defer { state.waiters = [] }
                return state.waiters
            }
            ended.signal()
            for waiter in waiters { waiter.resume(returning: exit) }
        }
    }

    /// The C library's `posix_spawn_file_actions_addclosefrom_np` and
    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.34 and 2.29, macOS 10.15 for the second),
    /// which Swift does not import: looked up by name.
    #if canImport(Darwin)
        private typealias FileActions = posix_spawn_file_actions_t?
    #else
        private typealias FileActions = posix_spawn_file_actions_t
        private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<FileActions>, Int32) -> Int32
        private static let closeFrom: CloseFrom? = cFunction("posix_spawn_file_actions_addclosefrom_np")
    #endif
    private typealias ChangeDirectory =
        @convention(c) (UnsafeMutablePointer<FileActions>, UnsafePointer<CChar>) -> Int32
    private static let changeDirectory: ChangeDirectory? = cFunction("posix_spawn_file_actions_addchdir_np")

    private static func cFunction<Function>(_ name: String) -> Function? {
        guard let program = dlopen(nil, RTLD_NOW), let symbol = dlsym(program, name) else { return nil }
        return unsafeBitCast(symbol, to: Function.self)
    }

    /// How the child ended, or `nil` while it runs.
    public var exit: Exit? { state.current.exit }

    /// The CPU time the child used, user and system, in seconds (`wait4`'s resource usage, its own
    /// children's not included), or `nil` while it runs.
    public var cpuSeconds: Double? { state.current.cpuSeconds }

    /// Waits until the child has ended; returns how.
    public func waitForExit() async -> Exit {
        await withCheckedContinuation { continuation in
            let ended = state.withValue { state -> Exit? in
                if let exit = state.exit { return exit }
                state.waiters.append(continuation)
                return nil
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }

    /// Blocks the calling thread until the child has ended; returns how. For synchronous callers
    /// (a clean-up in a `defer`, a synchronous test): async code awaits ``waitForExit()``.
    public func waitUntilExit() -> Exit {
        ended.wait()
        ended.signal()  // for the next caller
        return state.current.exit ?? Exit(code: -1, signaled: false)  // set before the signal
    }

    /// Waits until the child has ended, as ``waitForExit()``, but sends it `signal` first when the
    /// calling task is cancelled (a test's time limit), so that a hung child cannot hold the test
    /// for ever. Nothing is sent once its end is known (its process id may be another's by then).
    public func waitForExit(signalingOnCancel signal: Int32) async -> Exit {
        await withTaskCancellationHandler {
            await waitForExit()
        } onCancel: {
            if self.exit == nil { send(signal) }
        }
    }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        _ = kill(pid, signal)
    }
}

extension rusage {
    /// User and system CPU seconds.
    public var cpuSeconds: Double {
        Double(ru_utime.tv_sec) + Double(ru_utime.tv_usec) / 1e6 + Double(ru_stime.tv_sec)
            + Double(ru_stime.tv_usec) / 1e6
    }
}
