import Foundation
import Rewind
import RewindTestSupport
import Testing

/// `state`, `history`, `diff` and `verify` on a store written under a redaction policy: the
/// marker and the keyed hashes are printed as they are, the values never (they are not there).
struct RedactionCommandTests {
    @Test func stateHistoryDiffAndVerifyShowRedactedValuesAsRedacted() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("store").path
        var configuration = EngineConfiguration(durability: .noSync)
        configuration.redaction = [
            KanjiNavigation.name: [.keyedHash("data.detail.character"), .marker("data.list.word")]
        ]
        let engine = try Engine(directory: store, configuration: configuration)
        try engine.register(try KanjiNavigation.machine())
        _ = try await KanjiNavigation.walk("user", in: engine)
        engine.close()
        let tool = try RewindTool(store: store)

        let state = try await tool.text(["state", "user", "--at", "3"])
        #expect(state.contains("‹redacted›") && state.contains("‹hash:"), "\(state)")
        let history = try await tool.text(["history", "user"])
        #expect(history.contains(#"list {"word":"‹redacted›"}"#), "\(history)")
        let diff = try await tool.text(["diff", "user", "3", "4"])
        #expect(diff.contains("‹hash:"), "\(diff)")
        for text in [state, history, diff] {
            #expect(!text.contains("日本") && !text.contains("\"日\"") && !text.contains("\"本\""), "\(text)")
        }
        // Nothing the machine reads was redacted: every record is reproduced.
        let definition = directory.url.appendingPathComponent("kanji-back.json")
        try Data(KanjiNavigation.definition.jsonDocument()).write(to: definition)
        let verify = try await tool.text(["verify", "user", "--definition", definition.path])
        #expect(verify.contains("0 diverged"), "\(verify)")
    }
}
