import Foundation
import Rewind
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
}
