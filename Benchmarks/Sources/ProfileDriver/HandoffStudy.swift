import BenchmarkMachines
import CLMDBBench
import Dispatch
import Foundation
import Rewind
import Synchronization

/// `ProfileDriver handoff N`: what handing a synced commit to another thread and back costs a
/// task of Swift's cooperative pool, for each way of doing it, against the same commit made on the
/// task's own thread (issue 34: "measure where the hop goes and what a different handoff costs").
///
/// Each round makes one raw LMDB synced commit (one 140-byte put, default flags: the durable row's
/// raw LMDB baseline) in every way below, one after the other (each round starting with the next
/// way), so every way meets the same disk and the same load; it prints each way's percentiles over the `N` rounds and its median minus
/// the inline commit's:
/// - `inline`: on the task's own thread (a thread of the pool blocked for the sync: what the
///   engine must not do, the floor);
/// - `dispatch + continuation`: the engine's handoff (`BlockingQueue`, `CommitQueue`): a
///   `DispatchQueue.async` work item commits and resumes the task's continuation;
/// - `dispatch at the task's priority`: the same with the work item's QoS the task's priority
///   (`.enforceQoS`), so that the resumed task's job and the work item share a QoS class;
/// - `thread + condition + continuation`: a thread of its own waiting on an `NSCondition`, which
///   commits and resumes the continuation;
/// - `two threads, semaphore`: no Swift concurrency, the caller's thread blocked on a semaphore
///   while a thread of its own commits (two futex wakes per commit and nothing else);
/// - `task executor per send`: the task hops onto a `TaskExecutor` whose thread commits, then
///   back (`withTaskExecutorPreference` around each commit);
/// - `Rewind durable send`: the engine's own send on a session of the flat machine, in a durable
///   store of its own (`HANDOFF_ENGINE_MAP=N` starts it at an N-byte map), for what the engine
///   adds to its handoff when other commits come between.
///
/// The rounds run in one task made with `Task.detached` (`HANDOFF_PRIORITY=high|medium|low` sets
/// its priority), or with `HANDOFF_HARNESS=1` each round in a new `Task` made on a global queue's
/// thread while the caller blocks on a semaphore, as package-benchmark runs an async benchmark's
/// iterations. `HANDOFF_ONLY=inline,Rewind` keeps the ways whose names start so. `HANDOFF_WRITEMAP=1` opens the raw log with `MDB_WRITEMAP`, as the store opens its
/// environment. It also prints the bytes written per commit (`/proc/self/io`).
enum HandoffStudy {
    static func run(rounds: Int) async throws {
        let log = try RawSyncedLog()
        defer { log.close() }
        // The engine's own durable send, in the same rounds (a session of the flat machine).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rewind-handoff-engine-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = EngineConfiguration(durability: .durable)
        // `HANDOFF_ENGINE_MAP=N`: the store starts at an N-byte map (default 1 MiB).
        if let bytes = ProcessInfo.processInfo.environment["HANDOFF_ENGINE_MAP"].flatMap(Int.init) {
            configuration.store.environment.mapSize = bytes
        }
        let engine = try Engine(directory: directory, configuration: configuration)
        defer { engine.close() }
        try engine.register(try Machine(BenchMachines.flat))
        let session = try await engine.startSession(id: "handoff", machine: "onboarding-cycle")
        try await session.send("launch")
        let priority: TaskPriority? =
            switch ProcessInfo.processInfo.environment["HANDOFF_PRIORITY"] {
            case "high": .high
            case "medium": .medium
            case "low": .low
            default: nil
            }
        let writtenBefore = writtenBytes()
        let results = try await Task.detached(priority: priority) {
            try await measure(rounds: rounds, log: log, session: session)
        }.value
        let ways = results.keys.sorted { median(results[$0] ?? []) < median(results[$1] ?? []) }
        let inline = median(results["inline"] ?? [])
        let commits = results.values.reduce(0) { $0 + $1.count }
        print(
            "handoff: \(rounds) rounds, one raw LMDB synced commit per way and round (µs); "
                + "written \((writtenBytes() - writtenBefore) / max(commits, 1) / 1024) KiB per commit")
        for way in ways {
            let samples = results[way] ?? []
            print(
                way.padding(toLength: 36, withPad: " ", startingAt: 0)
                    + String(
                        format: "p25 %7.1f  p50 %7.1f  p75 %7.1f  p50 − inline %+6.1f",
                        percentile(samples, 0.25), median(samples), percentile(samples, 0.75),
                        median(samples) - inline))
        }
    }

    private nonisolated static func measure(
        rounds: Int, log: RawSyncedLog, session: Session
    ) async throws -> [String: [Double]] {
        let cycle = BenchMachines.flatCycle
        let position = Mutex(0)
        let queue = DispatchQueue(label: "handoff.dispatch")
        let thread = WorkerThread(name: "handoff.thread")
        let executor = WorkerExecutor(thread: WorkerThread(name: "handoff.executor"))
        let semaphore = DispatchSemaphore(value: 0)
        let clock = ContinuousClock()
        var results: [String: [Double]] = [:]
        let allWays: [(name: String, commit: @Sendable () async throws -> Void)] = [
            ("inline", { try log.commit() }),
            (
                "Rewind durable send (its own store)",
                {
                    let next = position.withLock { position in
                        defer { position = (position + 1) % cycle.count }
                        return position
                    }
                    try await session.send(cycle[next])
                }
            ),
            (
                "dispatch + continuation (the engine)",
                {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        queue.async { continuation.resume(with: Result { try log.commit() }) }
                    }
                }
            ),
            (
                "dispatch at the task's priority",
                {
                    let qos = DispatchQoS(qosClass: DispatchQoS.QoSClass(Task.currentPriority), relativePriority: 0)
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        queue.async(qos: qos, flags: .enforceQoS) {
                            continuation.resume(with: Result { try log.commit() })
                        }
                    }
                }
            ),
            (
                "thread + condition + continuation",
                {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        thread.submit { continuation.resume(with: Result { try log.commit() }) }
                    }
                }
            ),
            (
                "two threads, semaphore",
                {
                    let failure = LockedError()
                    thread.submit {
                        do { try log.commit() } catch { failure.set(error) }
                        semaphore.signal()
                    }
                    semaphore.wait()
                    try failure.check()
                }
            ),
            ("task executor per send", { try await commitOnExecutor(executor, log: log) }),
        ]
        // `HANDOFF_ONLY=a,b`: only the ways whose names start with one of these.
        let only = ProcessInfo.processInfo.environment["HANDOFF_ONLY"]?.split(separator: ",").map(String.init)
        let ways =
            only.map { prefixes in allWays.filter { way in prefixes.contains { way.name.hasPrefix($0) } } } ?? allWays
        // Each round starts with the next way (the order rotates), so no way always follows another.
        if ProcessInfo.processInfo.environment["HANDOFF_HARNESS"] == "1" {
            // As package-benchmark runs an async closure: each round in a new `Task` made on a
            // global queue's thread, the caller blocked on a semaphore until it ends.
            let box = ResultsBox()
            for round in 0..<rounds {
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global(qos: .userInitiated).async {
                    Task {
                        for offset in ways.indices {
                            let way = ways[(round + offset) % ways.count]
                            let start = clock.now
                            try? await way.commit()
                            box.add(way.name, (clock.now - start).microseconds)
                        }
                        done.signal()
                    }
                }
                done.wait()
            }
            return box.results
        }
        for round in 0..<rounds {
            for offset in ways.indices {
                let way = ways[(round + offset) % ways.count]
                let start = clock.now
                try await way.commit()
                results[way.name, default: []].append((clock.now - start).microseconds)
            }
        }
        return results
    }

    private nonisolated static func commitOnExecutor(_ executor: WorkerExecutor, log: RawSyncedLog) async throws {
        try await withTaskExecutorPreference(executor) {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                continuation.resume(with: Result { try log.commit() })
            }
        }
    }

    private static func percentile(_ samples: [Double], _ fraction: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    private static func median(_ samples: [Double]) -> Double { percentile(samples, 0.5) }
}

extension DispatchQoS.QoSClass {
    fileprivate init(_ priority: TaskPriority) {
        switch priority {
        case .high: self = .userInitiated
        case .medium: self = .default
        case .low: self = .utility
        case .background: self = .background
        default: self = priority > .high ? .userInteractive : .default
        }
    }
}

extension Duration {
    fileprivate var microseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    }
}

/// A raw LMDB environment whose every commit is synced (default flags), one 140-byte put each.
private final class RawSyncedLog: @unchecked Sendable {
    // Used by one thread at a time: each way of the study waits for its commit to return.
    private let directory: String
    private var environment: OpaquePointer?
    private var database: MDB_dbi = 0
    private var next: UInt64 = 1
    private var value = [UInt8](repeating: 0x5a, count: 140)

    init() throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("rewind-handoff-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try check(mdb_env_create(&environment))
        try check(mdb_env_set_mapsize(environment, 1 << 30))
        try check(mdb_env_set_maxdbs(environment, 4))
        // `HANDOFF_WRITEMAP=1`: `MDB_WRITEMAP`, as the store opens its environment (no reservation).
        let writeMap = ProcessInfo.processInfo.environment["HANDOFF_WRITEMAP"] == "1" ? MDB_WRITEMAP : 0
        try check(mdb_env_open(environment, directory, UInt32(MDB_NOTLS | writeMap), 0o644))
        var transaction: OpaquePointer?
        try check(mdb_txn_begin(environment, nil, 0, &transaction))
        try check(mdb_dbi_open(transaction, "log", UInt32(MDB_CREATE), &database))
        try check(mdb_txn_commit(transaction))
    }

    func commit() throws {
        var transaction: OpaquePointer?
        try check(mdb_txn_begin(environment, nil, 0, &transaction))
        var key = next.bigEndian
        let code = withUnsafeMutableBytes(of: &key) { keyBytes in
            value.withUnsafeMutableBytes { bytes in
                var keyValue = MDB_val(mv_size: 8, mv_data: keyBytes.baseAddress)
                var dataValue = MDB_val(mv_size: bytes.count, mv_data: bytes.baseAddress)
                return mdb_put(transaction, database, &keyValue, &dataValue, UInt32(MDB_APPEND))
            }
        }
        guard code == 0 else {
            mdb_txn_abort(transaction)
            throw RawLMDBFailure(code: code)
        }
        try check(mdb_txn_commit(transaction))
        next += 1
    }

    func close() {
        mdb_env_close(environment)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func check(_ code: Int32) throws {
        if code != 0 { throw RawLMDBFailure(code: code) }
    }
}

private struct RawLMDBFailure: Error, CustomStringConvertible {
    var code: Int32
    var description: String { "LMDB error \(code): \(String(cString: mdb_strerror(code)))" }
}

/// A thread of its own running the closures submitted to it, in order; waits on a condition
/// while there are none.
private final class WorkerThread: @unchecked Sendable {
    // `jobs` is guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []

    init(name: String) {
        let thread = Thread { [self] in
            while true {
                condition.lock()
                while jobs.isEmpty { condition.wait() }
                let batch = jobs
                jobs.removeAll(keepingCapacity: true)
                condition.unlock()
                for job in batch { job() }
            }
        }
        thread.name = name
        thread.start()
    }

    func submit(_ job: @escaping () -> Void) {
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }
}

/// A `TaskExecutor` whose jobs run on a ``WorkerThread``.
private final class WorkerExecutor: TaskExecutor, @unchecked Sendable {
    private let thread: WorkerThread

    init(thread: WorkerThread) {
        self.thread = thread
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        thread.submit { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

private final class ResultsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: [Double]] = [:]
    func add(_ name: String, _ value: Double) { lock.withLock { values[name, default: []].append(value) } }
    var results: [String: [Double]] { lock.withLock { values } }
}

/// The error of a commit made on another thread, handed back to the waiting one.
private final class LockedError: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var error: (any Error)?

    func set(_ error: any Error) { lock.withLock { self.error = error } }

    func check() throws {
        if let error = lock.withLock({ error }) { throw error }
    }
}
