import Foundation
import Testing

/// `rewind stats`: the store's records, sessions, machines and size.
struct StatsCommandTests {
    @Test func statsCountWhatTheStoreHolds() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let stats = try await demo.tool.json(CommandOutputs.Stats.self, ["stats"])
        let sessions = try await demo.tool.sessionRows(["sessions"])
        #expect(stats.records == demo.summary.totalRecords)
        #expect(stats.sessions == sessions.count)
        #expect(stats.machines == Dictionary(grouping: sessions, by: \.machine).mapValues(\.count))
        #expect(stats.fileBytes > 0)
        #expect(stats.usedBytes > 0 && stats.usedBytes <= stats.mapBytes)
        let oldest = try #require(stats.oldest)
        let newest = try #require(stats.newest)
        #expect(oldest <= newest)  // ISO 8601 in UTC sorts as text

        let text = try await demo.tool.text(["stats"])
        #expect(text.contains("records   \(stats.records)"))
        #expect(text.contains("sessions  \(stats.sessions)"))
        #expect(text.contains("kanji (\(stats.machines["kanji"] ?? -1))"))
    }
}
