// A small release driver for profilers (perf, valgrind --tool=callgrind): runs one path of the
// benchmark suite for a fixed amount of work, with no harness around it.
//
//   swift build -c release --product ProfileDriver
//   perf record -e cpu-clock -g .build/release/ProfileDriver durable 3000
//   valgrind --tool=callgrind .build/release/ProfileDriver flat 100000
//   .build/release/ProfileDriver flatprepared 20000000      (prepared events; also hierarchicalprepared)
// COMMIT_GATHERING=immediate|acknowledged overrides the engine's default. Modes: flat, flatprepared, hierarchicalprepared, durable, group64, nosync, nosync64, bulk, bulk64 (no-sync, 64 events per
// send(contentsOf:)), export (bulk, then the session exported: `export 20000 0` and `… 1` under
// callgrind differ by one export of 20,000 records), import (the same, then the archive imported:
// `import 20000 0` and `… 1` differ by one import), resume (the same, then the first session resumed
// from the store: `resume 20000 0` and `… 100` differ by 100 resumes), storeappend (the store alone), rawbulk (raw LMDB MDB_NOSYNC, 64 puts of a
// record's size per commit: bulk's baseline), rebuild, compact (the steps of compacting a copy of
// item 9's 128 MiB store), handoff (a synced commit handed to another thread and back, each way
// against the same commit inline: `handoff 3000`, HandoffStudy.swift).
//
// Instructions per record (callgrind, valgrind 3.19; binaries stripped of debug info first):
//   strip -g -o /tmp/pd .build/release/ProfileDriver
//   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p /tmp/pd bulk 66560   (and 1024)
//   (total of the first run − total of the second) ÷ 65536
import BenchmarkMachines
import CLMDBBench
import Foundation
import Rewind
import Synchronization

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "flat"
let count = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000

func scratch() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-profile-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

let flat = BenchMachines.flat
let cycle = BenchMachines.flatCycle

/// Drives `sessions` sessions for `count` transitions in total (`chunk` > 1: that many events
/// per `send(contentsOf:)`, bulk import), then exports the first session's archive `exports` times.
func drive(
    sessions: Int, durability: Durability, chunk: Int = 1, exports: Int = 0, imports: Int? = nil, resumes: Int = 0
) async throws {
    let directory = try scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let interval = ProcessInfo.processInfo.environment["SNAPSHOT_INTERVAL"].flatMap { UInt64($0) } ?? 64
    var configuration = EngineConfiguration(durability: durability, snapshotInterval: interval)
    switch ProcessInfo.processInfo.environment["COMMIT_GATHERING"] {
    case "immediate": configuration.commitGathering = .immediate
    case "acknowledged": configuration.commitGathering = .acknowledgedSenders
    default: break
    }
    let engine = try Engine(directory: directory, configuration: configuration)
    defer { engine.close() }
    try engine.register(try Machine(flat))
    var started: [Session] = []
    for index in 0..<sessions {
        let session = try await engine.startSession(id: "user-\(index)", machine: "onboarding-cycle")
        try await session.send("launch")
        started.append(session)
    }
    let perSession = count / sessions
    // EVENT_PAYLOAD: a JSON text every event carries as its payload (default: none).
    let payload = try ProcessInfo.processInfo.environment["EVENT_PAYLOAD"].map { text in
        try JSONValue(jsonBytes: Array(text.utf8))
    }
    let events = cycle.map { event in payload.map { Event(event.name, payload: $0) } ?? event }
    let writtenBefore = writtenBytes()
    let clock = ContinuousClock()
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for session in started {
            group.addTask {
                if chunk > 1 {
                    // The batches, from each place in the cycle, made before the run (an app hands
                    // over the events it has: building them is not the engine's work).
                    let batches = events.indices.map { start in
                        (0..<chunk).map { events[(start + $0) % events.count] }
                    }
                    var sent = 0
                    while sent < perSession {
                        let batch = batches[sent % events.count]
                        if perSession - sent >= chunk {
                            try await session.send(contentsOf: batch)
                        } else {
                            try await session.send(contentsOf: batch.prefix(perSession - sent))
                        }
                        sent += chunk
                    }
                } else {
                    for index in 0..<perSession { try await session.send(events[index % events.count]) }
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = clock.now - start
    let written = writtenBytes() - writtenBefore
    let statistics = engine.commitStatistics
    print(
        "\(mode): \(perSession * sessions) transitions in \(elapsed), batch \(statistics.averageBatch), commits \(statistics.commits), "
            + "inline \(statistics.inlineCommits), gathering waits \(statistics.gatheringWaits) (\(statistics.gatheringTimeouts) timed out), written \(written / 1024) KiB"
    )
    for _ in 0..<exports {
        let exportStart = clock.now
        let archive = try engine.exportSession("user-0")
        print("\(mode): exported \(archive.count) bytes in \(clock.now - exportStart)")
    }
    if resumes > 0 {
        // The first session resumed from its store (its latest snapshot, then the records after
        // it: 34 with the default interval and a count of 20,000), `resumes` times.
        let resumeStart = clock.now
        for _ in 0..<resumes { _ = try engine.session("user-0") }
        print("\(mode): resumed \(resumes) times in \(clock.now - resumeStart)")
    }
    if let imports {
        // Exported whatever `imports` is, so that `import N 1` minus `import N 0` is one import.
        let archive = try engine.exportSession("user-0")
        for index in 0..<imports {
            let importStart = clock.now
            let info = try await engine.importSession(archive, as: "imported-\(index)")
            print(
                "\(mode): imported \(info.recordCount) records (\(archive.count) bytes) in \(clock.now - importStart)")
        }
    }
}

/// Runs `body` on the cooperative pool and blocks the main thread until it is done. The main
/// thread waits on a semaphore instead of parking in an async `main` (`dispatch_main`, then
/// `sigsuspend`), where valgrind 3.19 crashes ("Valgrind received a signal 11") as soon as the
/// engine's threads run: this way callgrind can count the engine's instructions.
func runBlocking(_ body: @escaping @Sendable () async throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let failure = Mutex<(any Error)?>(nil)
    Task {
        do { try await body() } catch { failure.withLock { $0 = error } }
        done.signal()
    }
    done.wait()
    if let error = failure.withLock({ $0 }) { throw error }
}

/// Bytes this process has dirtied for the storage layer so far (`/proc/self/io`, Linux).
func writtenBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("write_bytes:") {
        return Int(line.split(separator: " ").last ?? "") ?? 0
    }
    return 0
}

switch mode {
case "flat":
    let machine = try Machine(flat)
    var state = try machine.send(Event("launch"), in: try machine.start().state).state
    for index in 0..<count { state = try machine.send(cycle[index % cycle.count], in: state).state }
    print(state.configuration)
case "flatprepared", "hierarchicalprepared", "parallelprepared":
    // The prepared-event path (`Machine.prepare`, `send(_:in: &state)`), flat or three levels deep.
    let isFlat = mode == "flatprepared"
    let isParallel = mode == "parallelprepared"
    let machine = try Machine(isFlat ? flat : isParallel ? BenchMachines.parallel : BenchMachines.hierarchical)
    var state = try machine.start().state
    if isFlat { state = try machine.send(Event("launch"), in: state).state }
    let events = isFlat ? cycle : isParallel ? BenchMachines.parallelCycle : BenchMachines.hierarchicalCycle
    let prepared = events.map { machine.prepare($0) }
    // In a function, not at top level: top-level variables are globals (exclusivity checks).
    func drive(_ state: inout MachineState) throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        for index in 0..<count { try machine.send(prepared[index % prepared.count], in: &state) }
        return clock.now - start
    }
    let elapsed = try drive(&state)
    print("\(mode): \(count) transitions in \(elapsed), \(state.configuration)")
case "durable":
    try runBlocking { try await drive(sessions: 1, durability: .durable) }
case "group64":
    try runBlocking { try await drive(sessions: 64, durability: .durable) }
case "group":
    // `group N SESSIONS`: durable group commit with that many sessions.
    try runBlocking {
        try await drive(sessions: arguments.count > 3 ? Int(arguments[3]) ?? 8 : 8, durability: .durable)
    }
case "nosync":
    try runBlocking { try await drive(sessions: 1, durability: .noSync) }
case "nosync64":
    try runBlocking { try await drive(sessions: 64, durability: .noSync) }
case "bulk":
    try runBlocking { try await drive(sessions: 1, durability: .noSync, chunk: 64) }
case "bulk64":
    try runBlocking { try await drive(sessions: 64, durability: .noSync, chunk: 64) }
case "export":
    // bulk, then the session's archive exported (third argument: how many times, default 1; with
    // 0 and 1 under callgrind, the difference is one export).
    let exports = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1
    try runBlocking { try await drive(sessions: 1, durability: .noSync, chunk: 64, exports: exports) }
case "import":
    // bulk, then the session's archive exported once and imported (third argument: how many
    // times, default 1) under new ids: with 0 and 1 under callgrind, the difference is one import.
    let imports = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1
    try runBlocking { try await drive(sessions: 1, durability: .noSync, chunk: 64, imports: imports) }
case "resume":
    // bulk, then the first session resumed from the store (third argument: how many times,
    // default 1; with 0 and 100 under callgrind, the difference is 100 resumes).
    let resumes = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1
    try runBlocking { try await drive(sessions: 1, durability: .noSync, chunk: 64, resumes: resumes) }
case "storeappend":
    do {
        // The store alone: 64 sessions, 64 transitions per append, no sync (what bulk import costs
        // below the engine).
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = StoreConfiguration()
        configuration.environment.options.insert(.noSync)
        let store = try TransitionStore(directory: directory, configuration: configuration)
        defer { store.close() }
        let screens = ["greeting", "login", "home"]
        let transitions = (0..<64).map { index in
            TransitionDraft(
                machine: "onboarding-cycle", definition: "0123456789abcdef", event: cycle[index % 3].name,
                source: [screens[index % 3]], target: [screens[(index + 1) % 3]],
                navigation: [.push(screens[(index + 1) % 3])])
        }
        let ids = try (0..<64).map { try SessionID("user-\($0)") }
        let storeClock = ContinuousClock()
        let start = storeClock.now
        var appended = 0
        while appended < count {
            for id in ids { try store.append(transitions, to: id) }
            appended += 64 * 64
        }
        print("storeappend: \(appended) records in \(storeClock.now - start)")
    }
case "rawbulk":
    // `rawbulk N [READS]`. Bulk's baseline: raw LMDB C calls with `MDB_NOSYNC`, `MDB_APPEND` puts of 140-byte values
    // (the bench machine's records are 131–144 bytes) under 8-byte keys, 64 per write transaction.
    let directory = try scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var environment: OpaquePointer?
    func check(_ code: Int32, _ what: String) {
        if code != 0 { fatalError("\(what): \(String(cString: mdb_strerror(code)))") }
    }
    check(mdb_env_create(&environment), "mdb_env_create")
    check(mdb_env_set_mapsize(environment, 8 << 30), "mdb_env_set_mapsize")
    check(mdb_env_set_maxdbs(environment, 16), "mdb_env_set_maxdbs")
    check(mdb_env_open(environment, directory, UInt32(MDB_NOTLS | MDB_NOSYNC), 0o644), "mdb_env_open")
    var database: MDB_dbi = 0
    var transaction: OpaquePointer?
    check(mdb_txn_begin(environment, nil, 0, &transaction), "mdb_txn_begin")
    check(mdb_dbi_open(transaction, "log", UInt32(MDB_CREATE), &database), "mdb_dbi_open")
    check(mdb_txn_commit(transaction), "mdb_txn_commit")
    var value = (0..<140).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    var next: UInt64 = 1
    let rawClock = ContinuousClock()
    let rawStart = rawClock.now
    value.withUnsafeMutableBytes { bytes in
        while next <= UInt64(count) {
            check(mdb_txn_begin(environment, nil, 0, &transaction), "mdb_txn_begin")
            for _ in 0..<64 where next <= UInt64(count) {
                var key = next.bigEndian
                withUnsafeMutableBytes(of: &key) { keyBytes in
                    var keyValue = MDB_val(mv_size: 8, mv_data: keyBytes.baseAddress)
                    var dataValue = MDB_val(mv_size: bytes.count, mv_data: bytes.baseAddress)
                    check(mdb_put(transaction, database, &keyValue, &dataValue, UInt32(MDB_APPEND)), "mdb_put")
                }
                next += 1
            }
            check(mdb_txn_commit(transaction), "mdb_txn_commit")
        }
    }
    // The baseline as configured, read back from LMDB.
    var flags: UInt32 = 0
    check(mdb_env_get_flags(environment, &flags), "mdb_env_get_flags")
    print(
        "rawbulk: \(count) records in \(rawClock.now - rawStart); read back: MDB_NOSYNC \(flags & UInt32(MDB_NOSYNC) != 0), "
            + "MDB_WRITEMAP \(flags & UInt32(MDB_WRITEMAP) != 0), MDB_NOMETASYNC \(flags & UInt32(MDB_NOMETASYNC) != 0)"
    )
    // Then, with a third argument, that many cursor reads of every record, each value's bytes
    // copied out of the map (the export's baseline: `rawbulk N 0` against `rawbulk N 1` under
    // callgrind is one read of N records).
    let reads = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0
    var copied: [UInt8] = []
    copied.reserveCapacity(count * 140)
    for _ in 0..<reads {
        copied.removeAll(keepingCapacity: true)
        var cursor: OpaquePointer?
        check(mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &transaction), "mdb_txn_begin")
        check(mdb_cursor_open(transaction, database, &cursor), "mdb_cursor_open")
        var keyValue = MDB_val()
        var dataValue = MDB_val()
        while mdb_cursor_get(cursor, &keyValue, &dataValue, MDB_NEXT) == 0 {
            copied.append(contentsOf: UnsafeRawBufferPointer(start: dataValue.mv_data, count: dataValue.mv_size))
        }
        mdb_cursor_close(cursor)
        mdb_txn_abort(transaction)
    }
    if reads > 0 { print("rawbulk: read \(copied.count) bytes \(reads) times") }
    mdb_env_close(environment)
case "handoff":
    // `handoff N`: N rounds of the handoff study (HandoffStudy.swift).
    try runBlocking { try await HandoffStudy.run(rounds: count) }
case "rebuild":
    // Needs the benchmark suite's 1,000,000-version store (written by its item 6 setup).
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-1M-v2").path
    let engine = try Engine(directory: path, configuration: EngineConfiguration(durability: .noSync))
    try engine.register(try Machine(flat))
    try engine.register(ScreenFlowProjection(), mode: .catchUp)
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<max(1, count / 1_000_000) { try engine.rebuildProjection(named: ScreenFlowProjection().name) }
    print("rebuild: \(clock.now - start)")
    engine.close()
case "compact":
    // Needs the benchmark suite's 128 MiB compaction store (written by its item 9 set-up): each
    // of `count` rounds copies it and compacts the copy, printing the time of each step.
    let source = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-compaction-128M").path
    let clock = ContinuousClock()
    for _ in 0..<max(1, count) {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: source + "/data.mdb", toPath: directory + "/data.mdb")
        let engine = try Engine(directory: directory, configuration: EngineConfiguration(durability: .noSync))
        let start = clock.now
        var steps: [String] = []
        let result = try engine.compact { step in steps.append("\(step.rawValue) at \(clock.now - start)") }
        print(
            "compact: \(result.liveBytes) live bytes; " + steps.joined(separator: ", ")
                + "; done at \(clock.now - start)")
        engine.close()
    }
default:
    print(
        "modes: flat, flatprepared, hierarchicalprepared, parallelprepared, durable, group64, group, nosync, nosync64, bulk, bulk64, export, import, resume, storeappend, rawbulk, handoff, rebuild, compact"
    )
}
