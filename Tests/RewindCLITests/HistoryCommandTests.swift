import Foundation
import Testing

/// `rewind history SESSION`: every version of a session, filtered by event or state.
struct HistoryCommandTests {
    @Test func historyListsVersionsOneToHeadEachStartingWhereThePreviousEnded() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions"])
        for machine in ["onboarding", "map", "kanji"] {
            let row = try #require(sessions.filter { $0.machine == machine }.max { $0.version < $1.version })
            let history = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", row.session])
            #expect(history.map(\.version) == Array(1...row.version), "\(row.session)")
            #expect(history.first?.event == "rewind.start", "\(row.session)")
            #expect(history.first?.source == [], "\(row.session)")
            for (before, after) in zip(history, history.dropFirst()) {
                #expect(after.sequence > before.sequence, "\(row.session)@\(after.version)")
                #expect(after.source == before.target, "\(row.session)@\(after.version)")
            }
            #expect(history.last?.target == row.states, "\(row.session)")

            let text = try await demo.tool.text(["history", row.session])
            #expect(text.hasPrefix("session \(row.session) · machine \(machine) · \(row.version) versions"))
            // A header line, a table header, one line per version.
            #expect(text.split(separator: "\n").count == 2 + history.count)
        }
    }

    @Test func eventAndStateFiltersKeepOnlyTheMatchingVersions() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        let row = try #require(sessions.max { $0.version < $1.version })
        try #require(row.version >= 3)
        let all = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", row.session])

        let enters = try await demo.tool.json(
            [CommandOutputs.HistoryRow].self, ["history", row.session, "--event", "enter"])
        #expect(enters == all.filter { $0.event == "enter" })
        #expect(enters.count == all.count - 1)

        let detail = try await demo.tool.json(
            [CommandOutputs.HistoryRow].self, ["history", row.session, "--state", "detail"])
        #expect(!detail.isEmpty)
        #expect(detail == all.filter { $0.source.contains("detail") || $0.target.contains("detail") })

        let nothing = try await demo.tool.json(
            [CommandOutputs.HistoryRow].self, ["history", row.session, "--event", "nope"])
        #expect(nothing.isEmpty)
    }

    @Test func historyOfAnUnknownSessionIsAOneLineError() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        expectOneLineError(try await demo.tool.run(["history", "nobody"]), containing: ["unknown session 'nobody'"])
        expectOneLineError(
            try await demo.tool.run(["history", "nobody", "--json"]), containing: ["unknown session 'nobody'"])
    }
}
