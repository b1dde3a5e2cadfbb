import Benchmark
import BenchmarkSupport
import Foundation
import Rewind

/// Item 9: compacting a store (`Engine.compact()`, an engine open on it: close, LMDB's compacting
/// copy to a file beside `data.mdb`, reserve and `fsync` it, rename, `fsync` the directory,
/// reopen) against LMDB's own tool, `mdb_copy -c SRC DST` (the same compacting copy into a new
/// directory, `O_DIRECT` writes, no flush), of the same store in the same run. Throughput is in
/// stores per second; the store is about 48 MiB of records.
func registerCompactionBenchmarks() {
    let box = FixtureBox<CompactionFixture>()
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], maxDuration: .seconds(10), maxIterations: 20)
    Benchmark("9 compaction of a 48 MiB store: Rewind", configuration: configuration, closure: { benchmark in
        guard let fixture = box.value else { return benchmark.error("no fixture") }
        do {
            let result = try fixture.engine.compact()
            blackHole(result)
        } catch {
            benchmark.error("\(error)")
        }
    }, setup: {
        box.value = try await box.value ?? CompactionFixture()
    }, teardown: {})
    Benchmark("9 compaction of a 48 MiB store: mdb_copy -c (baseline)", configuration: configuration, closure: { benchmark in
        guard let fixture = box.value else { return benchmark.error("no fixture") }
        do {
            try fixture.mdbCopy()
        } catch {
            benchmark.error("\(error)")
        }
    }, setup: {
        let fixture = try await box.value ?? CompactionFixture()
        box.value = fixture
        try fixture.verifyBaseline()
    }, teardown: {
        box.value?.close()
        box.value = nil
    })
}

/// A store of about 48 MiB of records (64 sessions, 1.5 KiB payloads), an engine open on it,
/// and LMDB's `mdb_copy`.
final class CompactionFixture: @unchecked Sendable {
    static let mdbCopy = "/usr/bin/mdb_copy"
    let directory: ScratchDirectory
    let copies: ScratchDirectory
    let engine: Engine

    init() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.mdbCopy) else {
            throw BenchmarkSetupError("\(Self.mdbCopy) is missing: apt-get install lmdb-utils")
        }
        directory = try ScratchDirectory("compaction")
        copies = try ScratchDirectory("compaction-copies")
        engine = try Engine(directory: directory.path, configuration: EngineConfiguration(durability: .noSync))
        try engine.register(try Machine(MachineDefinition("ticker") { StateNode("idle") { On("tick", to: "idle") } }))
        let engine = self.engine
        let filler = JSONValue.string(String(repeating: "x", count: 1_500))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let session = try await engine.startSession(id: "s\(index)", machine: "ticker")
                    for n in 0..<500 { try await session.send("tick", payload: ["n": .number(Double(n)), "filler": filler]) }
                }
            }
            try await group.waitForAll()
        }
        try engine.flush()
    }

    /// `mdb_copy -c` of the store into a new directory (removed afterwards).
    func mdbCopy() throws {
        let target = copies.path + "/" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: target) }
        try run(Self.mdbCopy, ["-c", directory.path, target])
    }

    /// Checks that the baseline is what its row says: LMDB's `mdb_copy` of the library version
    /// Rewind links, run with `-c`, writing a compacted file (as long as the pages Rewind's own
    /// compaction keeps, no free pages).
    func verifyBaseline() throws {
        let version = try run(Self.mdbCopy, ["-V"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let live = try engine.compact().liveBytes
        let target = copies.path + "/check"
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: target) }
        try run(Self.mdbCopy, ["-c", directory.path, target])
        let size = ((try FileManager.default.attributesOfItem(atPath: target + "/data.mdb"))[.size] as? NSNumber)?.intValue
        let observed = "\(version), `mdb_copy -c` wrote \(size ?? -1) bytes, Rewind's compacted pages \(live) bytes"
        guard version.contains("0.9.24"), size == live else {
            print("BASELINE CONFIGURATION CHECK FAILED: mdb_copy -c: \(observed)")
            throw BenchmarkSetupError("mdb_copy -c is not the compacting copy of LMDB 0.9.24: \(observed)")
        }
        print("baseline check: mdb_copy -c (compacting copy, LMDB's tool): \(observed)")
    }

    @discardableResult
    private func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkSetupError("\(executable) \(arguments) exited with \(process.terminationStatus)")
        }
        return String(decoding: output, as: UTF8.self)
    }

    func close() {
        engine.close()
        directory.remove()
        copies.remove()
    }
}
