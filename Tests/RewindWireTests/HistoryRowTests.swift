import Foundation
import Rewind
import RewindTestSupport
import RewindWire
import Testing

/// `rewind history --json` and the fleet server's `…/history` print ``HistoryRow``s: the entries
/// of the replay's history, each with the navigation stack after its version.
@Suite struct HistoryRowTests {
    @Test func rowsAreTheHistoryEntriesWithTheStackAReplayReachesAtTheirVersion() async throws {
        let fixture = try ReplayFixture()
        let engine = fixture.engine
        let filters = [
            HistoryFilter.all, HistoryFilter(events: ["open", "close", "back", "enter"]),
            HistoryFilter(states: ["post"]), HistoryFilter(versions: 2...5),
            HistoryFilter(states: ["feedList"], versions: 3...8),
        ]
        var compared = 0
        for id in try await fixture.recordAllExamples() {
            for filter in filters {
                for limit in [Int.max, 2, 0] {
                    let rows = try engine.store.read {
                        try HistoryRow.rows(of: id, in: $0, filter: filter, limit: limit, coder: engine.store.coder)
                    }
                    let entries = try engine.history(of: id, filter: filter, limit: limit)
                    #expect(rows.map(\.version) == entries.map(\.version))
                    var cursor = try engine.replayCursor(for: id)
                    for (row, entry) in zip(rows, entries) {
                        #expect(row.sequence == entry.sequence)
                        #expect(row.time == entry.timestamp.description)
                        #expect(row.event == entry.event)
                        #expect(row.source == entry.source)
                        #expect(row.target == entry.target)
                        #expect(row.navigation == entry.navigation.map(\.description))
                        // The stack is rebuilt from every record from version 1, not only those shown.
                        #expect(row.stack == (try cursor.seek(to: row.version)).navigation.entries)
                        compared += 1
                    }
                }
            }
        }
        #expect(compared > 50)
    }

    @Test func aRowReadsBackAsItWasWritten() throws {
        let json =
            #"{"event":"back","navigation":["pop"],"sequence":9,"source":["detail"],"#
            + #""stack":[{"data":null,"screen":"all"},{"data":{"character":"日"},"screen":"detail"}],"#
            + #""target":["all"],"time":"2026-11-26T10:22:34Z","version":3}"#
        let row = try JSONDecoder().decode(HistoryRow.self, from: Data(json.utf8))
        #expect(
            row.stack == [NavigationEntry(screen: "all"), NavigationEntry(screen: "detail", data: ["character": "日"])])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(String(decoding: try encoder.encode(row), as: UTF8.self) == json)
    }
}
