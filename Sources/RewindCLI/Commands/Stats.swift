import ArgumentParser
import Foundation
import Rewind

/// `rewind stats`: the store's size and contents.
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the store's records, sessions, machines, size, map usage, oldest and newest records.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    struct Report: Encodable {
        var store: String
        var records: UInt64
        var sessions: Int
        var machines: [String: Int]
        /// The data file's apparent size (its length).
        var fileBytes: UInt64
        /// The disk space the data file takes (less than its length when it is sparse).
        var allocatedBytes: UInt64
        var mapBytes: Int
        var usedBytes: Int
        var oldest: String?
        var newest: String?
    }

    func run() async throws {
        let engine = try storeOptions.openEngine()
        defer { engine.close() }
        let statistics = try engine.store.statistics()
        let (head, sessions, machines, oldest, newest) = try engine.store.read { transaction in
            let head = try transaction.headSequence()
            var sessions = 0
            var machines: [String: Int] = [:]
            try transaction.forEachSession { info in
                sessions += 1
                machines[info.machine, default: 0] += 1
                return .next
            }
            let oldest = head > 0 ? try transaction.record(at: 1)?.timestamp : nil
            let newest = head > 0 ? try transaction.record(at: head)?.timestamp : nil
            return (head, sessions, machines, oldest, newest)
        }
        let file = URL(fileURLWithPath: storeOptions.store).appendingPathComponent("data.mdb").path
        var status = stat()
        let found = stat(file, &status) == 0
        let fileBytes = found ? UInt64(status.st_size) : 0
        let allocatedBytes = found ? UInt64(status.st_blocks) * 512 : 0
        let report = Report(
            store: engine.store.path, records: head, sessions: sessions, machines: machines,
            fileBytes: fileBytes, allocatedBytes: allocatedBytes, mapBytes: statistics.mapSize,
            usedBytes: statistics.usedPages * statistics.pageSize,
            oldest: oldest?.description, newest: newest?.description)
        if output.json {
            try Terminal.printJSON(report)
            return
        }
        // A data file may be sparse (its map not reserved): its length is not what it takes.
        let sparse =
            report.allocatedBytes < report.fileBytes ? " (data file \(Self.bytes(report.fileBytes)) long, sparse)" : ""
        let usage = report.mapBytes == 0 ? 0 : 100 * Double(report.usedBytes) / Double(report.mapBytes)
        print(
            """
            store     \(report.store)
            records   \(report.records)
            sessions  \(report.sessions)
            machines  \(report.machines.sorted { $0.key < $1.key }.map { "\($0.key.shown) (\($0.value))" }.joined(separator: ", "))
            size      \(Self.bytes(report.allocatedBytes)) on disk\(sparse); map \(Self.bytes(UInt64(report.mapBytes))), \
            \(String(format: "%.1f", usage))% used
            oldest    \(report.oldest ?? "-")
            newest    \(report.newest ?? "-")
            """)
    }

    static func bytes(_ count: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }
}
