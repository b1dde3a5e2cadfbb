import Foundation
import Testing

/// `rewind sessions`: every session with its machine, head version and current states.
struct SessionsCommandTests {
    @Test func everySessionIsListedWithItsHeadVersionAndCurrentStates() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let rows = try await demo.tool.json([CommandOutputs.SessionRow].self, ["sessions"])
        #expect(rows.count == demo.summary.totalSessions)
        #expect(Set(rows.map(\.session)).count == rows.count)
        for row in rows.prefix(6) {
            let history = try await demo.tool.json([CommandOutputs.HistoryRow].self, ["history", row.session])
            #expect(row.version == UInt64(history.count), "\(row.session)")
            #expect(row.states == history.last?.target, "\(row.session)")
            let state = try await demo.tool.json(CommandOutputs.Point.self, ["state", row.session])
            #expect(state.version == row.version, "\(row.session)")
            #expect(Set(row.states).isSubset(of: Set(state.configuration)), "\(row.session)")
        }
        #expect(rows.allSatisfy { $0.origin == nil })

        let text = try await demo.tool.text(["sessions"])
        let lines = text.split(separator: "\n")
        #expect(lines.first?.hasPrefix("SESSION") == true)
        #expect(lines.count == rows.count + 1)
        for row in rows {
            #expect(lines.contains { $0.hasPrefix(row.session + " ") }, "\(row.session)")
        }
    }

    @Test func machineFilterListsOnlyThatMachinesSessions() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let all = try await demo.tool.json([CommandOutputs.SessionRow].self, ["sessions"])
        let kanji = try await demo.tool.json([CommandOutputs.SessionRow].self, ["sessions", "--machine", "kanji"])
        #expect(!kanji.isEmpty)
        #expect(kanji.allSatisfy { $0.machine == "kanji" })
        #expect(kanji.map(\.session).sorted() == all.filter { $0.machine == "kanji" }.map(\.session).sorted())
        let none = try await demo.tool.json([CommandOutputs.SessionRow].self, ["sessions", "--machine", "nothing"])
        #expect(none.isEmpty)
    }

    @Test func anEmptyStoreHasNoSessions() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let summary = try await demo.tool.json(DemoStore.Summary.self, ["demo", "--sessions", "0", "--fresh"])
        #expect(summary.totalSessions == 0)
        let rows = try await demo.tool.json([CommandOutputs.SessionRow].self, ["sessions"])
        #expect(rows.isEmpty)
        let text = try await demo.tool.text(["sessions"])
        #expect(text.contains("no sessions"))
    }
}
