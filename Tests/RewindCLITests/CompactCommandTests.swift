import Foundation
import Rewind
import RewindTestSupport
import Testing

/// `rewind compact`: the data file's bytes before and after, in text and JSON; the store stays
/// whole; refused (status 2, one line naming the process) while another process has it open.
struct CompactCommandTests {
    struct Report: Decodable {
        var store: String
        var bytesBefore: Int
        var bytesAfter: Int
        var liveBytes: Int
        var mapBytes: Int
    }

    @Test func compactReportsTheBytesBeforeAndAfterAndKeepsEveryRecord() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let history = try await demo.tool.run(["sessions", "--json"])
        let report = try await demo.tool.json(Report.self, ["compact"])
        #expect(report.bytesAfter <= report.bytesBefore, "\(report)")
        #expect(report.liveBytes > 0 && report.liveBytes <= report.bytesAfter)
        let size = (try FileManager.default.attributesOfItem(atPath: demo.tool.store + "/data.mdb"))[.size] as? NSNumber
        #expect(size?.intValue == report.bytesAfter)
        let check = try await demo.tool.run(["check"])
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("consistent (\(demo.summary.totalRecords) records"))
        #expect(try await demo.tool.run(["sessions", "--json"]).stdout == history.stdout)

        let text = try await demo.tool.run(["compact"])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.split(separator: "\n").count == 1)
        #expect(text.stdout.contains(": data file "), "\(text.stdout)")
        #expect(text.stdout.contains(" before, ") && text.stdout.contains(" after ("), "\(text.stdout)")
    }

    @Test func compactRefusesAStoreAnotherProcessHasOpenAndChangesNothing() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let engine = try Engine(directory: demo.tool.store)
        defer { engine.close() }
        let before = try Data(contentsOf: URL(fileURLWithPath: demo.tool.store + "/data.mdb"))
        let output = try await demo.tool.run(["compact"])
        #expect(output.status == 2, "\(output)")
        #expect(output.stderr.contains("process \(getpid()) has it open"), "\(output.stderr)")
        #expect(output.stderr.split(separator: "\n").count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: demo.tool.store + "/data.mdb")) == before)
    }
}
