import Foundation
import RewindTestSupport
import Testing

/// `rewind replay SESSION` without a terminal: every step printed with its timeline and diff.
struct ReplayCommandTests {
    /// The timelines `[━━●───] 3/6` of a replay's text, as (filled cells, cells, version, head).
    static func timelines(_ text: String) -> [(filled: Int, cells: Int, version: UInt64, head: UInt64)] {
        text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return nil }
            let bar = line[line.index(after: line.startIndex)..<close]
            let numbers = line[line.index(after: close)...].trimmingCharacters(in: .whitespaces).split(separator: "/")
            guard numbers.count == 2, let version = UInt64(numbers[0]), let head = UInt64(numbers[1]),
                bar.filter({ $0 == "●" }).count == 1
            else { return nil }
            return (bar.prefix { $0 == "━" }.count, bar.count, version, head)
        }
    }

    @Test func withoutATerminalReplayPrintsEveryStepWithItsTimelineAndDiff() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        let row = try #require(sessions.max { $0.version < $1.version })
        let text = try await demo.tool.text(["replay", row.session])
        let timelines = Self.timelines(text)
        #expect(timelines.map(\.version) == Array(1...row.version))
        for timeline in timelines {
            #expect(timeline.head == row.version)
            #expect(timeline.cells == Int(row.version))
            #expect(timeline.filled == Int(timeline.version) - 1, "version \(timeline.version)")
        }
        // One diff per step after the first, and the navigation stack of every step.
        #expect(text.components(separatedBy: "\ndiff ").count - 1 == Int(row.version) - 1)
        let steps = try await demo.tool.json([CommandOutputs.Point].self, ["replay", row.session])
        for step in steps {
            #expect(text.contains("version     \(step.version)"))
            #expect(text.contains("navigation  \(try CommandOutputs.stackText(step.navigationStack))"))
        }
    }

    @Test func replayAtAVersionStartsThere() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        let row = try #require(sessions.max { $0.version < $1.version })
        try #require(row.version >= 3)
        let all = try await demo.tool.json([CommandOutputs.Point].self, ["replay", row.session])
        let fromThree = try await demo.tool.json([CommandOutputs.Point].self, ["replay", row.session, "--at", "3"])
        #expect(fromThree == Array(all.dropFirst(2)))
        let text = try await demo.tool.text(["replay", row.session, "--at", "3"])
        #expect(Self.timelines(text).map(\.version) == Array(3...row.version))
        // The first printed step still says what changed since the version before it.
        #expect(text.contains("diff 2 → 3"))

        expectOneLineError(
            try await demo.tool.run(["replay", row.session, "--at", "0"]), containing: ["bad version '0'"])
        expectOneLineError(
            try await demo.tool.run(["replay", row.session, "--at", String(row.version + 1)]),
            containing: ["bad version"])
        expectOneLineError(try await demo.tool.run(["replay", "nobody"]), containing: ["unknown session 'nobody'"])
    }

    @Test func theTimelineMarksEveryVersionOfALongSessionInItsOwnCell() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("store").path
        // 23, 24, 27 and 40 versions are where a floating-point position fell one cell short.
        for versions in [23, 24, 27, 40] {
            try await LongKanjiSession.write(id: "long-\(versions)", versions: versions, into: store)
        }
        let tool = try RewindTool(store: store)
        for versions in [23, 24, 27, 40] {
            let text = try await tool.text(["replay", "long-\(versions)"])
            let timelines = Self.timelines(text)
            #expect(timelines.count == versions)
            for timeline in timelines {
                #expect(
                    timeline.filled == Int(timeline.version) - 1, "\(versions) versions, version \(timeline.version)")
            }
        }
    }
}
