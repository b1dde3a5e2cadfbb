import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Two processes on one store: LMDB serialises their writes; a session changed by the other
/// process is a version conflict, never a lost or duplicated record.
struct TwoProcessesTests {
    /// One line of the helper's output (see `Tests/RewindTestHelper/main.swift`).
    struct Report: Decodable {
        var kind: String
        var session: String
        var n: Int?
        var version: UInt64?
        var detail: String?
    }

    /// The helper executable, next to the test bundle in the build folder.
    static func helperURL() -> URL? {
        BuiltProduct.url(named: "RewindTestHelper")
    }

    /// Runs the helper with `arguments`, its output going to `output`; returns its exit status.
    static func runHelper(_ helper: URL, _ arguments: [String], output: URL) async throws -> Int32 {
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: output.path])
        }
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        // A `SpawnedProcess`: Foundation's `Process.run()` reads past a buffer in `memmove` when
        // the test process has many descriptors open (it crashed CI runs).
        let child = try SpawnedProcess(
            helper.path, arguments: arguments, stdin: FileHandle.standardInput.fileDescriptor,
            stdout: handle.fileDescriptor, stderr: FileHandle.standardError.fileDescriptor)
        return await child.waitForExit().code
    }

    @Test(.hangGuard)
    func twoProcessesAppendingToSharedAndOwnSessionsProduceConflictsNeverLostOrDuplicatedRecords() async throws {
        guard let helper = Self.helperURL() else {
            Issue.record(
                "RewindTestHelper was not found next to the test bundle: build it with `swift build --build-tests`")
            return
        }
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let count = 150
        // Both helpers start their rounds at this time: far enough ahead for both to have started
        // and opened the store on a loaded machine (1.5 s was too short once, in a CI run with
        // the whole suite in parallel: the rounds never overlapped, no conflict to check).
        let startAt = Timestamp.now().microsecondsSince1970 / 1000 + 5_000
        let writers = ["alpha", "beta"]
        let outputs = writers.map {
            fixture.directory.url.deletingLastPathComponent().appendingPathComponent(
                "\(fixture.directory.url.lastPathComponent)-\($0).jsonl")
        }
        defer { for output in outputs { try? FileManager.default.removeItem(at: output) } }
        let store = fixture.directory.path
        // Create the store first: two processes creating one new store at the same instant is
        // another matter (see twoProcessesCreatingOneNewStoreAtOnceBothOpenIt).
        try fixture.open(registering: []).close()
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for (writer, output) in zip(writers, outputs) {
                group.addTask {
                    try await Self.runHelper(
                        helper, [store, writer, "shared", "own-\(writer)", String(count), String(startAt)],
                        output: output)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == [0, 0])

        var reports: [String: [Report]] = [:]
        for (writer, output) in zip(writers, outputs) {
            let text = try String(contentsOf: output, encoding: .utf8)
            reports[writer] = try text.split(separator: "\n").map {
                try JSONDecoder().decode(Report.self, from: Data($0.utf8))
            }
        }
        let errors = reports.values.joined().filter { $0.kind == "error" }
        #expect(errors.isEmpty, "\(errors.map { $0.detail ?? "" })")

        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let audit = try LogAudit(engine.writableStore)
        #expect(audit.problems.isEmpty, "\(audit.problems.prefix(5))")
        // One start of the shared session, one per own session, two ticks per round and writer.
        #expect(audit.records.count == 1 + writers.count * (1 + 2 * count))
        #expect(audit.records(of: "shared").filter { $0.event == StepRecording.startEvent }.count == 1)

        let coder = JSONPayloadCoder()
        var conflicts = 0
        for writer in writers {
            let lines = reports[writer] ?? []
            let acks = lines.filter { $0.kind == "ack" }
            #expect(acks.count == 2 * count, "\(writer)")
            // Every acknowledged record is in the log, at the acknowledged version, with its payload.
            for ack in acks {
                let version = try #require(ack.version)
                let record = try #require(audit.records(of: ack.session).first { $0.version == version })
                let payload = try coder.decode(JSONValue.self, from: record.payload)
                #expect(payload["writer"]?.stringValue == writer, "\(ack.session)@\(version)")
                #expect(payload["n"]?.doubleValue == ack.n.map(Double.init), "\(ack.session)@\(version)")
            }
            // Only the shared session conflicts.
            let conflictLines = lines.filter { $0.kind == "conflict" }
            #expect(conflictLines.allSatisfy { $0.session == "shared" })
            conflicts += conflictLines.count
        }
        // Each writer's ticks are in the shared session once each, in its order.
        for writer in writers {
            let numbers = try audit.records(of: "shared").compactMap { record -> Double? in
                guard !record.payload.isEmpty else { return nil }
                let payload = try coder.decode(JSONValue.self, from: record.payload)
                return payload["writer"]?.stringValue == writer ? payload["n"]?.doubleValue : nil
            }
            #expect(numbers == (0..<count).map(Double.init), "\(writer)")
        }
        #expect(conflicts > 0, "the two processes never conflicted on the shared session")
        print("two processes: \(conflicts) conflicts on the shared session")
    }

    @Test(.hangGuard)
    func twoProcessesCreatingOneNewStoreAtOnceBothOpenIt() async throws {
        guard let helper = Self.helperURL() else {
            Issue.record(
                "RewindTestHelper was not found next to the test bundle: build it with `swift build --build-tests`")
            return
        }
        // The second process may see the first one's fresh data.mdb before its `meta` database is
        // committed: it must treat it as a store being created, not as a foreign directory.
        for round in 0..<5 {
            do {
                let fixture = try EngineFixture()
                defer { fixture.remove() }
                let store = fixture.directory.url.appendingPathComponent("store-\(round)").path
                let startAt = Timestamp.now().microsecondsSince1970 / 1000
                let outputs = ["alpha", "beta"].map { fixture.directory.url.appendingPathComponent("\($0).jsonl") }
                let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
                    for (writer, output) in zip(["alpha", "beta"], outputs) {
                        group.addTask {
                            try await Self.runHelper(
                                helper, [store, writer, "shared", "own-\(writer)", "5", String(startAt)], output: output
                            )
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let errors = try outputs.map { try String(contentsOf: $0, encoding: .utf8) }
                    .joined().split(separator: "\n").filter { $0.contains("\"error\"") }
                #expect(statuses == [0, 0], "round \(round): \(errors)")
            }
        }
    }
}
