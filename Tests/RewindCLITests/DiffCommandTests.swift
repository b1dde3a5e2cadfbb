import Foundation
import Rewind
import RewindTestSupport
import Testing

/// `rewind diff SESSION A B`: what changed between two versions.
struct DiffCommandTests {
    @Test func diffBetweenTwoVersionsMatchesTheStatesAtThoseVersions() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        let row = try #require(sessions.max { $0.version < $1.version })
        try #require(row.version >= 3)
        let pairs: [(UInt64, UInt64)] = [(1, row.version), (2, 3), (row.version, 1), (2, 2)]
        for (a, b) in pairs {
            let diff = try await demo.tool.json(CommandOutputs.Diff.self, ["diff", row.session, String(a), String(b)])
            let from = try await demo.tool.json(CommandOutputs.Point.self, ["state", row.session, "--at", String(a)])
            let to = try await demo.tool.json(CommandOutputs.Point.self, ["state", row.session, "--at", String(b)])
            #expect(diff.from == a)
            #expect(diff.to == b)
            #expect(Set(diff.exited) == Set(from.activeStates).subtracting(to.activeStates), "\(a)→\(b)")
            #expect(Set(diff.entered) == Set(to.activeStates).subtracting(from.activeStates), "\(a)→\(b)")
            #expect(diff.navigationBefore == from.navigationStack, "\(a)→\(b)")
            #expect(diff.navigationAfter == to.navigationStack, "\(a)→\(b)")
            if a == b {
                #expect(diff.exited.isEmpty && diff.entered.isEmpty && diff.pushed.isEmpty && diff.popped.isEmpty)
                let text = try await demo.tool.text(["diff", row.session, String(a), String(b)])
                #expect(text.contains("no change"))
            }
        }
        let text = try await demo.tool.text(["diff", row.session, "1", String(row.version)])
        #expect(text.hasPrefix("diff 1 → \(row.version)"))
    }

    @Test func jsonChangesAreStructuredWithPathBeforeAndAfter() async throws {
        let scratch = try TemporaryDirectory(prefix: "rewind-cli")
        defer { scratch.remove() }
        let store = scratch.url.appendingPathComponent("store").path
        try await LongKanjiSession.write(id: "long", versions: 6, into: store)
        let tool = try RewindTool(store: store)
        // Versions 2 and 4 are both the detail screen, entered with meanings ["day", "v2"] and ["day", "v4"].
        let diff = try await tool.json(CommandOutputs.Diff.self, ["diff", "long", "2", "4"])
        let change = try #require(diff.stateData.first { $0.before == .string("v2") }, "\(diff.stateData)")
        #expect(change.change == "changed")
        #expect(change.after == .string("v4"))
        #expect(change.path.contains("meanings"), "\(change.path)")
        let text = try await tool.text(["diff", "long", "2", "4"])
        #expect(text.contains("~ \(change.path): \"v2\" → \"v4\""), "\(text)")
    }

    @Test func diffWithABadVersionIsAOneLineError() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions"])
        let row = try #require(sessions.first)
        for (a, b) in [("18446744073709551616", "1"), ("1", String(row.version + 1)), ("x", "1")] {
            expectOneLineError(try await demo.tool.run(["diff", row.session, a, b]), containing: ["bad version"])
        }
        // Version 0 is the session before its first record (as the fleet server answers it).
        let fromNothing = try await demo.tool.run(["diff", row.session, "0", "1"])
        #expect(fromNothing.status == 0, "\(fromNothing)")
        expectOneLineError(
            try await demo.tool.run(["diff", "nobody", "1", "2"]), containing: ["unknown session 'nobody'"])
    }
}
