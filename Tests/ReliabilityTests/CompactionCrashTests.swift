import Foundation
import Rewind
import RewindTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A store to compact: sessions of the ticker machine with acknowledged sends of 1 KiB payloads
/// in a 32 MiB map, and free pages (the sessions' entries and snapshots are rewritten as they go).
struct CompactionStore {
    let fixture: EngineFixture
    /// Every record, read back after the sends were acknowledged.
    let records: [TransitionRecord]

    var path: String { fixture.directory.path }
    var dataFile: String { path + "/data.mdb" }

    static func make(sessions: Int = 8, sendsPerSession: Int = 400) async throws -> CompactionStore {
        let fixture = try EngineFixture(snapshotInterval: 16)
        // A map larger than the records (as stores made before the map followed what is in
        // use): the compacted file is shorter.
        let engine = try fixture.open(registering: [try TickerMachine.machine()]) {
            $0.durability = .noSync
            $0.store.environment.mapSize = 32 << 20
        }
        defer { engine.close() }
        let filler = String(repeating: "rewind-compaction ", count: 56)  // about 1 KiB
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<sessions {
                group.addTask {
                    let session = try await engine.startSession(id: "s\(index)", machine: TickerMachine.name)
                    for n in 0..<sendsPerSession {
                        try await session.send(
                            TickerMachine.tick, payload: ["n": .number(Double(n)), "filler": .string(filler)])
                    }
                }
            }
            try await group.waitForAll()
        }
        return CompactionStore(fixture: fixture, records: try engine.writableStore.records())
    }

    /// Opens the store as an app would and checks it: consistent, every record there as it was.
    func expectWhole(_ context: String) throws {
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let report = try engine.checkStore()
        #expect(report.isConsistent, "\(context): \(String(describing: report.problem))")
        #expect(try engine.writableStore.records() == records, "\(context)")
        #expect(!FileManager.default.fileExists(atPath: path + "/data.mdb.compacting"), "\(context)")
    }

    static func inode(_ path: String) -> UInt64 {
        var status = stat()
        return stat(path, &status) == 0 ? UInt64(status.st_ino) : 0
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }
}

/// `kill -9` during a compaction (RELIABILITY.md, "Compaction"): a child process
/// (`RewindTestHelper compact`) is killed at each step; the store then opens as the old or the new
/// file, consistent, with every acknowledged record.
struct CompactionCrashTests {
    /// `copying`/`forever`: killed as the copy starts (the exclusive lock held); `copying`/`none`:
    /// killed as soon as the test reads that the copy started, wherever it is by then (usually
    /// inside `mdb_env_copyfd2` with a partial copy on disk, sometimes later or done: the test
    /// takes any of these); `copied`: the copy flushed, not renamed; `replaced`: renamed, the
    /// directory flushed, the environment not reopened.
    @Test(
        .hangGuard,
        arguments: [
            ("copying", "forever"), ("copying", "none"), ("copied", "forever"), ("replaced", "forever"),
        ])
    func aCompactionKilledAtAnyStepLeavesTheOldOrTheNewStoreWhole(step: String, pause: String) async throws {
        let store = try await CompactionStore.make()
        defer { store.fixture.remove() }
        let oldInode = CompactionStore.inode(store.dataFile)
        let oldSize = CompactionStore.fileSize(store.dataFile)
        let child = try HelperProcess(["compact", store.path, step, pause])
        defer { child.kill() }
        let line = try await child.waitForLine { $0.hasPrefix("step ") || $0.contains("error") }
        #expect(line == "step \(step)", "\(child.lines)")
        child.kill()
        let status = try await child.waitForExit()
        let finished = child.lines.contains { $0.hasPrefix("compacted ") }
        #expect(status.reason == .uncaughtSignal || (pause == "none" && finished), "\(child.lines)")
        let replaced = CompactionStore.inode(store.dataFile) != oldInode
        switch step {
        case "copying" where pause == "forever", "copied": #expect(!replaced)
        case "replaced": #expect(replaced && CompactionStore.fileSize(store.dataFile) < oldSize)
        default: break  // killed wherever the copy was by then: either file is right
        }
        try store.expectWhole("killed at \(step) (data file \(replaced ? "replaced" : "kept"))")
        // And it compacts again.
        let engine = try store.fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let result = try engine.compact()
        #expect(result.bytesAfter <= result.bytesBefore)
        #expect(try engine.checkStore().isConsistent)
    }
}

/// Compaction and other processes: refused while another process has the store open; an open
/// in another process during a compaction waits for it and gets the new file.
struct CompactionProcessTests {
    @Test(.hangGuard)
    func aStoreOpenInAnotherProcessIsNotCompactedAndTheErrorNamesIt() async throws {
        let store = try await CompactionStore.make(sessions: 2, sendsPerSession: 50)
        defer { store.fixture.remove() }
        let holder = try HelperProcess(["hold", store.path])
        defer { holder.kill() }  // also when an expectation below fails (it waits until killed)
        let opened = try await holder.waitForLine { $0.hasPrefix("opened") || $0.contains("error") }
        #expect(opened?.hasPrefix("opened ") == true, "\(holder.lines)")
        let inode = CompactionStore.inode(store.dataFile)
        let engine = try store.fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        #expect(throws: CompactionError.openInAnotherProcess(path: engine.store.path, processID: holder.pid)) {
            try engine.compact()
        }
        #expect(CompactionStore.inode(store.dataFile) == inode)
        // This engine goes on, and once the other process is gone the store compacts.
        let session = try engine.session("s0")
        try await session.send(TickerMachine.tick, payload: ["n": 1000])
        holder.kill()
        _ = try await holder.waitForExit()
        let result = try engine.compact()
        #expect(result.bytesAfter <= result.bytesBefore)
        try await session.send(TickerMachine.tick, payload: ["n": 1001])
        #expect(try engine.checkStore().isConsistent)
        #expect(CompactionStore.inode(store.dataFile) != inode)
    }

    @Test(.hangGuard)
    func anOpenDuringACompactionWaitsForItAndOpensTheNewFile() async throws {
        let store = try await CompactionStore.make(sessions: 2, sendsPerSession: 50)
        defer { store.fixture.remove() }
        let oldInode = CompactionStore.inode(store.dataFile)
        let go = store.path + "/../" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: go) }
        let compactor = try HelperProcess(["compact", store.path, "copied", go])
        defer { compactor.kill() }
        #expect(try await compactor.waitForLine { $0.hasPrefix("step") || $0.contains("error") } == "step copied")
        let opener = try HelperProcess(["hold", store.path])
        defer { opener.kill() }
        // The opener's shared lock waits behind the compactor's exclusive one (the kernel's lock
        // table lists it as blocked).
        #expect(try await Self.waitUntilBlocked(opener), "\(opener.lines)")
        #expect(opener.lines.isEmpty)
        try Data().write(to: URL(fileURLWithPath: go))
        let done = try await compactor.waitForLine { $0.hasPrefix("compacted") || $0.contains("error") }
        #expect(done?.hasPrefix("compacted ") == true, "\(compactor.lines)")
        let opened = try #require(try await opener.waitForLine { $0.hasPrefix("opened") || $0.contains("error") })
        let newInode = CompactionStore.inode(store.dataFile)
        #expect(newInode != oldInode)
        #expect(opened == "opened \(newInode) \(store.records.count)", "\(opener.lines)")
        opener.kill()
        _ = try await opener.waitForExit()
        _ = try await compactor.waitForExit()
        try store.expectWhole("opened during a compaction")
    }

    /// Waits until `/proc/locks` lists a blocked lock request of `process` (`true`), or until the
    /// process has printed a line or ended without one (`false`: it did not wait for the lock).
    /// No deadline of its own: a loaded machine may take long to start the helper, and the test's
    /// time limit (`hangGuard`) ends a wait that never ends.
    static func waitUntilBlocked(_ process: HelperProcess) async throws -> Bool {
        while true {
            let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
            if locks.split(separator: "\n").contains(where: { $0.contains("->") && $0.contains(" \(process.pid) ") }) {
                return true
            }
            if !process.lines.isEmpty || process.hasExited { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
