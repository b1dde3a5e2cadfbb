import Foundation
import Rewind
import RewindTestSupport
import Testing

/// The README's 20-line example, kept compiling and true.
@Suite("README example")
struct ReadmeExampleTests {
    enum Screen: String { case all, detail, list }

    @Test func readmeExampleResumesWhereTheUserLeftOff() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let kanji = MachineDefinition("kanji") {
            StateNode(Screen.all, navigation: .popToRoot, validNextStates: [.detail])
            StateNode(Screen.detail, navigation: .push(), validNextStates: [.all, .list])
            StateNode(Screen.list, navigation: .push(), validNextStates: [.detail, .all])
        }
        let shown = LockedBox<[JSONValue]>([])
        do {
            let engine = try Engine(directory: directory.path)
            defer { engine.close() }
            try engine.register(try Machine(kanji))
            let session = try await engine.startSession(id: "user-42", machine: "kanji") { session in
                session.onDidEnter("detail") { change in shown.append(change.data) }
            }
            try await session.enter(Screen.detail, data: ["character": "日"])
            #expect(shown.current == [["character": "日"]])
        }
        let engine = try Engine(directory: directory.path)
        defer { engine.close() }
        try engine.register(try Machine(kanji))
        let resumed = try engine.session("user-42")
        #expect(resumed.activeStates == ["detail"])
        #expect(resumed.navigationStack.screens == ["all", "detail"])
        #expect(resumed.navigationStack.top?.data ?? .null == ["character": "日"])
        #expect(resumed.state.data["detail"] == ["character": "日"])
    }

    /// The overview of the Rewind module's documentation (`Documentation.docc/Rewind.md`).
    @Test func moduleOverviewExampleRunsAsWritten() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let engine = try Engine(directory: directory.path)
            defer { engine.close() }
            try engine.register(try ExampleMachines.Kanji.machine())
            let session = try await engine.startSession(id: "user-42", machine: "kanji")
            try await session.enter(ExampleMachines.Kanji.State.detail,
                                    data: ExampleMachines.Kanji.Character(character: "日", meanings: ["day"]))
        }
        let engine = try Engine(directory: directory.path)
        defer { engine.close() }
        try engine.register(try ExampleMachines.Kanji.machine())
        let resumed = try engine.session("user-42")
        var cursor = try engine.replayCursor(for: "user-42")
        let first = try cursor.seek(to: 1)
        let diff = try engine.diff(resumed.id, from: 1, to: resumed.version)
        #expect(first.activeStates == ["all"])
        #expect(diff.entered == ["detail"])
        #expect(diff.navigation.pushed.map(\.screen) == ["detail"])
        #expect(resumed.state.data["detail"]?["character"] == "日")
    }
}
