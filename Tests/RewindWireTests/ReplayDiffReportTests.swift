import Foundation
import Rewind
import RewindWire
import Testing

/// The report types are what `rewind … --json` prints and what the fleet server answers; the CLI
/// reading from a server decodes them and prints them again, so they must read back as written.
@Suite struct ReplayDiffReportTests {
    @Test func aChangeFromOrToNullReadsBackAsItWasWritten() throws {
        let before = JSONValue.object(["title": .null, "count": 1])
        let after = JSONValue.object(["title": "Inbox", "count": .null, "new": .null])
        let changes = before.differences(to: after).map(ReplayDiffReport.Change.init)
        #expect(changes.count == 3)
        #expect(changes.contains { $0.before == .null && $0.after == "Inbox" })
        #expect(changes.contains { $0.change == "added" && $0.before == nil && $0.after == .null })
        let encoded = try JSONEncoder().encode(changes)
        let decoded = try JSONDecoder().decode([ReplayDiffReport.Change].self, from: encoded)
        #expect(decoded == changes)
    }

    @Test func aChangeWritesNullAsNullAndLeavesAnAbsentValueOut() throws {
        let before = JSONValue.object(["title": .null, "gone": .null])
        let after = JSONValue.object(["title": "Inbox", "new": .null])
        let changes = before.differences(to: after).map(ReplayDiffReport.Change.init)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = String(decoding: try encoder.encode(changes), as: UTF8.self)
        #expect(
            bytes == #"[{"before":null,"change":"removed","path":"gone"},"#
                + #"{"after":null,"change":"added","path":"new"},"#
                + #"{"after":"Inbox","before":null,"change":"changed","path":"title"}]"#)
        let decoded = try JSONDecoder().decode([ReplayDiffReport.Change].self, from: Data(bytes.utf8))
        #expect(decoded.map(\.before) == [.some(.null), nil, .some(.null)])
        #expect(decoded.map(\.after) == [nil, .some(.null), .some("Inbox")])
    }
}
