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
        #expect(
            output.stdout.contains("consistent (\(demo.summary.totalRecords) records, \(DemoStore.sessions) sessions"))
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

    @Test func aDamagedPageIsTheProblemInTextAndJSONAndStatusOne() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let dataFile = demo.tool.store + "/data.mdb"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: dataFile))
        // The last branch or leaf page in use, its node offsets overwritten.
        let page = try #require(
            try PageCheck.check(directory: demo.tool.store).filter { page in
                let flags = Int(page) * 4096 + 10
                return page >= 2 && (bytes[flags] == 0x01 || bytes[flags] == 0x02) && bytes[flags + 1] == 0
            }.max())
        bytes.replaceSubrange((Int(page) * 4096 + 16)..<(Int(page) * 4096 + 80), with: repeatElement(0xff, count: 64))
        try bytes.write(to: URL(fileURLWithPath: dataFile))
        let text = try await demo.tool.run(["check"])
        #expect(text.status == 1, "\(text)")
        #expect(text.stdout.hasPrefix("problem at page \(page) of '"), "\(text)")
        let json = try await demo.tool.run(["check", "--json"])
        #expect(json.status == 1, "\(json)")
        let report = try JSONDecoder().decode(Report.self, from: Data(json.stdout.utf8))
        #expect(!report.consistent)
        #expect(report.location?.hasPrefix("page \(page) of '") == true, "\(json)")
        #expect(report.problem?.isEmpty == false)
    }
}
