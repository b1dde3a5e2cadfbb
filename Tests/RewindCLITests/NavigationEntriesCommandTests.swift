import Foundation
import Rewind
import RewindTestSupport
import RewindWire
import Testing

/// `state`, `history`, `replay` and `diff` show the navigation stack's entries with their data
/// (issue 18 §2), on a store holding the Kanji walk Detail(日) → List(日本) → Detail(本) → back →
/// back of ``KanjiNavigation`` (a machine the CLI knows only from the store's definitions).
struct NavigationEntriesCommandTests {
    /// A store with the walk as session `user`, and the tool on it.
    private static func walked(in directory: TemporaryDirectory) async throws -> RewindTool {
        let store = directory.url.appendingPathComponent("store").path
        let engine = try Engine(directory: store, configuration: EngineConfiguration(durability: .noSync))
        defer { engine.close() }
        try engine.register(try KanjiNavigation.machine())
        try await KanjiNavigation.walk("user", in: engine)
        return try RewindTool(store: store)
    }

    @Test func stateReplayAndHistoryShowEveryVersionsEntriesWithTheirData() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let tool = try await Self.walked(in: directory)

        let steps = try await tool.json([CommandOutputs.Point].self, ["replay", "user"])
        #expect(steps.map(\.navigationStack) == KanjiNavigation.stacks)
        let history = try await tool.json([CommandOutputs.HistoryRow].self, ["history", "user"])
        #expect(history.map(\.stack) == KanjiNavigation.stacks)
        #expect(
            history.map(\.navigation) == [
                ["setRoot(all)"], ["push(detail)"], ["push(list)"], ["push(detail)"], ["pop"], ["pop"],
            ])
        // Filtered, a row still shows the stack after its version.
        let backs = try await tool.json([CommandOutputs.HistoryRow].self, ["history", "user", "--event", "back"])
        #expect(backs.map(\.stack) == Array(KanjiNavigation.stacks[4...]))
        for version in 1...6 {
            let point = try await tool.json(CommandOutputs.Point.self, ["state", "user", "--at", String(version)])
            #expect(point.navigationStack == KanjiNavigation.stacks[version - 1], "version \(version)")
        }

        let state = try await tool.text(["state", "user"])
        #expect(
            state.contains(#"navigation  all › detail {"character":"日","meanings":["day","sun"]}   (pop)"#), "\(state)")
        #expect(state.contains(#"data        detail: {"character":"日","meanings":["day","sun"]}"#), "\(state)")
        let text = try await tool.text(["history", "user"])
        let five = try #require(text.split(separator: "\n").first { $0.hasPrefix("5 ") })
        #expect(five.contains(" pop "), "\(five)")
        #expect(
            five.hasSuffix(#"all › detail {"character":"日","meanings":["day","sun"]} › list {"word":"日本"}"#), "\(five)")
    }

    @Test func diffJSONAndTextShowThePoppedAndPushedEntriesWithTheirData() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let tool = try await Self.walked(in: directory)

        let back = try await tool.json(CommandOutputs.Diff.self, ["diff", "user", "4", "5"])
        #expect(back.popped == [KanjiNavigation.entry("detail", KanjiNavigation.book)])
        #expect(back.pushed.isEmpty)
        #expect(back.navigationBefore == KanjiNavigation.stacks[3])
        #expect(back.navigationAfter == KanjiNavigation.stacks[4])
        let text = try await tool.text(["diff", "user", "5", "6"])
        #expect(
            text.contains(
                #"stack     all › detail {"character":"日","meanings":["day","sun"]} › list {"word":"日本"} ⇒ all › detail {"character":"日","meanings":["day","sun"]}"#
            ),
            "\(text)")
    }
}
