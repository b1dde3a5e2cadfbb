import Benchmark
import BenchmarkSupport
import Foundation
import Rewind

/// Item 9: compacting a store (`Engine.compact()`, an engine open on it: close, LMDB's compacting
/// copy to a file beside `data.mdb`, reserve and `fsync` it, rename, `fsync` the directory,
/// reopen) against LMDB's own tool, `mdb_copy -c SRC DST` (the same compacting copy into a new
/// directory, `O_DIRECT` writes, no flush), and against the same tool followed by an `fsync` of
/// its copy (what a compaction that replaces the store must flush before its rename), of the same
/// store (kept in the temporary directory, like item 6's) in the same run.
func registerCompactionBenchmarks() {
    let box = FixtureBox<Engine>()
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], maxDuration: .seconds(10), maxIterations: 20)
    Benchmark(
        "9 compaction of a 128 MiB store: Rewind", configuration: configuration,
        closure: { benchmark in
            guard let engine = box.value else { return benchmark.error("no fixture") }
            do {
                blackHole(try engine.compact())
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            try await CompactionStore.ensure()
            box.value = try Engine(directory: CompactionStore.path)
        },
        teardown: {
            box.value?.close()
            box.value = nil
        })
    Benchmark(
        "9 compaction of a 128 MiB store: mdb_copy -c (baseline)", configuration: configuration,
        closure: { benchmark in
            do {
                try CompactionStore.mdbCopy()
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            try await CompactionStore.ensure()
            try CompactionStore.verifyBaseline()
        }, teardown: {})
    Benchmark(
        "9 compaction of a 128 MiB store: mdb_copy -c, then fsync of the copy (baseline)",
        configuration: configuration,
        closure: { benchmark in
            do {
                try CompactionStore.mdbCopy(flushing: true)
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            try await CompactionStore.ensure()
        }, teardown: {})
}

/// The store both rows compact: about 128 MiB of pages (64 sessions × 500 sends of 1.5 KiB
/// payloads), written once into the temporary directory and kept (delete it to rebuild).
enum CompactionStore {
    static let mdbCopyPath = "/usr/bin/mdb_copy"
    static let path = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-compaction-128M").path
    static let copies = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-compaction-copies")
        .path

    /// Writes the store unless it is there.
    static func ensure() async throws {
        guard FileManager.default.isExecutableFile(atPath: mdbCopyPath) else {
            throw BenchmarkSetupError("\(mdbCopyPath) is missing: apt-get install lmdb-utils")
        }
        try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: path + "/data.mdb") { return }
        let engine = try Engine(directory: path, configuration: EngineConfiguration(durability: .noSync))
        defer { engine.close() }
        try engine.register(try Machine(MachineDefinition("ticker") { StateNode("idle") { On("tick", to: "idle") } }))
        let filler = JSONValue.string(String(repeating: "x", count: 1_500))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let session = try await engine.startSession(id: "s\(index)", machine: "ticker")
                    for n in 0..<500 {
                        try await session.send("tick", payload: ["n": .number(Double(n)), "filler": filler])
                    }
                }
            }
            try await group.waitForAll()
        }
        try engine.flush()
    }

    /// `mdb_copy -c` of the store into a new directory (removed afterwards); `flushing`: then
    /// `fsync` of the copy, as a compaction that replaces the store must before its rename
    /// (`mdb_copy` writes with `O_DIRECT` and flushes nothing).
    static func mdbCopy(flushing: Bool = false) throws {
        let target = copies + "/" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: target) }
        try run(mdbCopyPath, ["-c", path, target])
        if flushing {
            let fd = open(target + "/data.mdb", O_RDONLY)
            guard fd >= 0 else { throw BenchmarkSetupError("cannot open the copy to flush it") }
            defer { close(fd) }
            guard fsync(fd) == 0 else { throw BenchmarkSetupError("fsync of the copy failed: errno \(errno)") }
        }
    }

    /// Checks that the baseline is what its row says: LMDB's `mdb_copy` of the library version
    /// Rewind links, run with `-c`, writing a compacted file (exactly as long as the pages Rewind's
    /// own compaction keeps: no free pages).
    static func verifyBaseline() throws {
        let version = try run(mdbCopyPath, ["-V"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let live = try Engine.compact(directory: path).liveBytes
        let target = copies + "/check"
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: target) }
        try run(mdbCopyPath, ["-c", path, target])
        let size = ((try FileManager.default.attributesOfItem(atPath: target + "/data.mdb"))[.size] as? NSNumber)?
            .intValue
        let observed = "\(version), `mdb_copy -c` wrote \(size ?? -1) bytes, Rewind's compacted pages \(live) bytes"
        guard version.contains("0.9.24"), size == live else {
            print("BASELINE CONFIGURATION CHECK FAILED: mdb_copy -c: \(observed)")
            throw BenchmarkSetupError("mdb_copy -c is not the compacting copy of LMDB 0.9.24: \(observed)")
        }
        print("baseline check: mdb_copy -c (compacting copy, LMDB's tool): \(observed)")
    }

    @discardableResult
    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
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
}
