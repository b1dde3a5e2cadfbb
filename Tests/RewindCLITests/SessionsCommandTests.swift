import Foundation
import Testing

/// `rewind sessions`: every session with its machine, head version and current states.
struct SessionsCommandTests {
    @Test func everySessionIsListedWithItsHeadVersionAndCurrentStates() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let rows = try await demo.tool.sessionRows(["sessions"])
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
        let all = try await demo.tool.sessionRows(["sessions"])
        let kanji = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        #expect(!kanji.isEmpty)
        #expect(kanji.allSatisfy { $0.machine == "kanji" })
        #expect(kanji.map(\.session).sorted() == all.filter { $0.machine == "kanji" }.map(\.session).sorted())
        let none = try await demo.tool.sessionRows(["sessions", "--machine", "nothing"])
        #expect(none.isEmpty)
        // The text says there are no sessions of that machine (not that the store is empty).
        let text = try await demo.tool.text(["sessions", "--machine", "nothing"])
        #expect(text.contains("no sessions of machine 'nothing'"), "\(text)")
        #expect(text.contains("kanji") && text.contains("onboarding"), "\(text)")
    }

    /// The id's prefix and number: `kanji-27` is ("kanji-", 27).
    private static func key(_ session: String) -> (String, Int) {
        let digits = session.reversed().prefix { $0.isNumber }
        return (String(session.dropLast(digits.count)), Int(String(digits.reversed())) ?? -1)
    }

    @Test func sessionsAreSortedNaturallyAndLimited() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let rows = try await demo.tool.sessionRows(["sessions"])
        let natural = rows.map(\.session).sorted { Self.key($0) < Self.key($1) }
        #expect(rows.map(\.session) == natural)
        // kanji-3 before kanji-12 (as text they sort the other way).
        let kanji = rows.map(\.session).filter { $0.hasPrefix("kanji-") }
        #expect(kanji.prefix(2) == ["kanji-3", "kanji-6"], "\(kanji)")
        let text = try await demo.tool.text(["sessions"])
        #expect(text.split(separator: "\n").dropFirst().map { String($0.split(separator: " ")[0]) } == natural)

        let limited = try await demo.tool.json(CommandOutputs.SessionList.self, ["sessions", "--limit", "4"])
        #expect(limited.sessions.map(\.session) == Array(natural.prefix(4)))
        #expect(limited.total == rows.count, "--json carries the total the text's last line says")
        let limitedText = try await demo.tool.text(["sessions", "--limit", "4"])
        #expect(limitedText.contains("(4 of \(rows.count) sessions; --limit N shows more)"), "\(limitedText)")
        let kanjiLimited = try await demo.tool.json(
            CommandOutputs.SessionList.self, ["sessions", "--machine", "kanji", "--limit", "2"])
        #expect(kanjiLimited.sessions.count == 2 && kanjiLimited.total == kanji.count)
        expectUsageError(
            try await demo.tool.run(["sessions", "--limit", "0"]), containing: ["--limit must be at least 1"])
    }

    @Test func anEmptyStoreHasNoSessions() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let summary = try await demo.tool.json(DemoStore.Summary.self, ["demo", "--sessions", "0", "--fresh"])
        #expect(summary.totalSessions == 0)
        let rows = try await demo.tool.sessionRows(["sessions"])
        #expect(rows.isEmpty)
        let text = try await demo.tool.text(["sessions"])
        #expect(text.contains("no sessions"))
    }
}
