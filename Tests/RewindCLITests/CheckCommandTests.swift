import Foundation
import Rewind
import RewindLMDB
import RewindTestSupport
import Testing

/// `rewind check`: a one-line summary on a consistent store (status 0), the first problem with
/// its location on a damaged one (status 1).
struct CheckCommandTests {
    struct Report: Decodable {
        var consistent: Bool
        var records: UInt64
        var sessions: Int
        var location: String?
        var problem: String?
    }

    @Test func aConsistentStoreIsOneLineAndStatusZero() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let output = try await demo.tool.run(["check"])
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.split(separator: "\n").count == 1)
        #expect(output.stdout.contains("consistent (\(demo.summary.totalRecords) records, \(DemoStore.sessions) sessions"))
        let report = try await demo.tool.json(Report.self, ["check"])
        #expect(report.consistent)
        #expect(report.records == demo.summary.totalRecords)
    }

    @Test func aCorruptedRecordIsReportedWithItsSequenceAndStatusOne() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        do {
            let env = try Environment(directory: demo.tool.store)
            defer { env.close() }
            let log = try env.database(named: StoreLayout.log, create: false)
            try env.write { txn in
                var bytes = try #require(try txn.get(StoreKey.uint64(12), in: log))
                bytes[bytes.count - 6] ^= 0x01
                try txn.put(bytes, forKey: StoreKey.uint64(12), in: log)
            }
        }
        let output = try await demo.tool.run(["check"])
        #expect(output.status == 1, "\(output)")
        #expect(output.stdout.hasPrefix("problem at log sequence 12: "), "\(output)")
        let json = try await demo.tool.run(["check", "--json"])
        #expect(json.status == 1)
        let report = try JSONDecoder().decode(Report.self, from: Data(json.stdout.utf8))
        #expect(!report.consistent)
        #expect(report.location == "log sequence 12")
    }
}
