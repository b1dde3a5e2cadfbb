import Foundation
import Rewind
import Testing

/// ``UpgradeCheckReport`` built one session at a time: it counts every session and lists at most
/// its list limit of each kind, the rest counted in `unlisted`, also after a round trip through
/// JSON (the fleet server's answer is decoded and read on).
struct UpgradeCheckReportTests {
    /// A row of `kind` for session `id` (what the check of one session adds).
    static func row(_ id: String, _ kind: UpgradeCheckReport.Kind, migrations: [String]? = nil)
        -> UpgradeCheckReport.Row
    {
        var row = UpgradeCheckReport.Row(unreadable: id, machine: "shop", reason: "test")
        row.kind = kind
        row.error = kind == .unreadable ? "test" : nil
        row.resumes = [.unchanged, .migrated, .diverging].contains(kind)
        row.migrations = migrations
        return row
    }

    /// Adds `count` sessions of `kind`, named `prefix-N`.
    static func add(
        _ count: Int, _ kind: UpgradeCheckReport.Kind, _ prefix: String, to report: inout UpgradeCheckReport
    ) {
        for index in 0..<count {
            report.add(row("\(prefix)-\(index)", kind, migrations: kind == .migrated ? ["cart is basket"] : nil))
        }
    }

    @Test func itListsAtMostItsLimitOfEachKindAndCountsTheRest() {
        var report = UpgradeCheckReport(label: "v2", machine: "shop", definition: "d2", listLimit: 3)
        Self.add(10, .unchanged, "u", to: &report)
        Self.add(5, .incompatible, "i", to: &report)
        Self.add(2, .unreadable, "r", to: &report)
        Self.add(4, .migrated, "m", to: &report)

        #expect(report.checkedSessions == 21)
        #expect(report.unchanged == 10 && report.incompatible == 5 && report.unreadable == 2 && report.migrated == 4)
        #expect(
            report.sessions.map(\.session) == [
                "u-0", "u-1", "u-2", "i-0", "i-1", "i-2", "r-0", "r-1", "m-0", "m-1", "m-2",
            ])
        #expect(report.unlisted == [.unchanged: 7, .incompatible: 2, .migrated: 1])
        #expect(!report.passes)

        var unlimited = UpgradeCheckReport(label: "v2", machine: "shop", definition: "d2")
        Self.add(10, .unchanged, "u", to: &unlimited)
        #expect(unlimited.sessions.count == 10 && unlimited.unlisted == nil && unlimited.passes)
    }

    @Test func aDecodedReportGoesOnCountingWithinItsLimit() throws {
        var report = UpgradeCheckReport(label: "v2", machine: "shop", definition: "d2", listLimit: 2)
        Self.add(1, .unchanged, "u", to: &report)
        Self.add(3, .incompatible, "i", to: &report)
        let json = try JSONEncoder().encode(report)
        let keys = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any]).keys
        #expect(
            Set(keys) == [
                "label", "machine", "definition", "checkedSessions", "unchanged", "migrated", "incompatible",
                "migrationFailed", "unreadable", "diverging", "divergingEvents", "sessions", "unlisted", "listLimit",
            ])
        var decoded = try JSONDecoder().decode(UpgradeCheckReport.self, from: json)
        #expect(decoded == report)

        // The decoded report knows what its list holds: one more unchanged is listed, the
        // incompatible ones stay at the limit.
        Self.add(3, .unchanged, "v", to: &decoded)
        Self.add(1, .incompatible, "j", to: &decoded)
        #expect(decoded.sessions.map(\.session) == ["u-0", "i-0", "i-1", "v-0"])
        #expect(decoded.unlisted == [.incompatible: 2, .unchanged: 2])
        #expect(decoded.checkedSessions == 8)
        // A list changed directly (sorted, a row dropped) is counted again before the next row.
        decoded.sessions.removeAll { $0.session == "v-0" }
        Self.add(2, .unchanged, "w", to: &decoded)
        #expect(decoded.sessions.map(\.session) == ["u-0", "i-0", "i-1", "w-0"])
        #expect(decoded.unlisted == [.incompatible: 2, .unchanged: 3])
    }

    @Test func equalReportsAreEqualHoweverTheyWereBuilt() throws {
        var built = UpgradeCheckReport(label: "v2", machine: "shop", definition: "d2", listLimit: 5)
        Self.add(3, .unchanged, "u", to: &built)
        var assigned = UpgradeCheckReport(label: "v2", machine: "shop", definition: "d2", listLimit: 5)
        assigned.checkedSessions = 3
        assigned.unchanged = 3
        assigned.sessions = built.sessions
        #expect(assigned == built)
        #expect(Set([assigned, built]).count == 1)
    }
}
