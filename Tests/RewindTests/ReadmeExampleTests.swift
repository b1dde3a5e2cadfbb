import Foundation
import Rewind
import RewindTestSupport
import Testing

/// The README's 20-line example, kept compiling and true.
@Suite("README example")
struct ReadmeExampleTests {
    enum Screen: String { case all, detail, list }

    /// The README's example, line for line, its `print`s replaced by appending to `printed` and
    /// `shown`.
    static func runReadmeExample(
        in directory: String, printed: LockedBox<[String]>, shown: LockedBox<[JSONValue]>
    ) async throws {
        let kanji = MachineDefinition("kanji") {
            StateNode(Screen.all, navigation: .popToRoot, validNextStates: [.detail])
            StateNode(Screen.detail, navigation: .push(), validNextStates: [.all, .list])
            StateNode(Screen.list, navigation: .push(), validNextStates: [.detail, .all])
        }

        let engine = try Engine(directory: directory)          // durable by default
        defer { engine.close() }
        try engine.register(try Machine(kanji))
        let session = try await engine.openSession(id: "user-42", machine: "kanji") { session in
            session.onDidEnter(Screen.detail) { change in shown.append(change.data) }
        }
        printed.append("\(session.activeStates) \(session.navigationStack.screens)")
        if session.activeStates == ["detail"] { try await session.enter(Screen.all) }
        try await session.enter(Screen.detail, data: ["character": "日"])
    }

    @Test func readmeExampleRunsTwiceInARowResumingTheSecondTime() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = LockedBox<[String]>([])
        let shownFirst = LockedBox<[JSONValue]>([])
        try await Self.runReadmeExample(in: directory.path, printed: first, shown: shownFirst)
        #expect(first.current == [#"["all"] ["all"]"#])
        #expect(shownFirst.current == [["character": "日"]])

        // The second run resumes the session the first one left in `detail` (no sessionExists).
        let second = LockedBox<[String]>([])
        let shownSecond = LockedBox<[JSONValue]>([])
        try await Self.runReadmeExample(in: directory.path, printed: second, shown: shownSecond)
        #expect(second.current == [#"["detail"] ["all", "detail"]"#])
        // The hook `configure` installed on the resumed session ran for the new entry.
        #expect(shownSecond.current == [["character": "日"]])

        let engine = try Engine(directory: directory.path)
        defer { engine.close() }
        try engine.register(try Machine(MachineDefinition("kanji") {
            StateNode(Screen.all, navigation: .popToRoot, validNextStates: [.detail])
            StateNode(Screen.detail, navigation: .push(), validNextStates: [.all, .list])
            StateNode(Screen.list, navigation: .push(), validNextStates: [.detail, .all])
        }))
        let resumed = try engine.session("user-42")
        #expect(resumed.version == 4)   // start, detail; then all, detail
        #expect(resumed.activeStates == ["detail"])
        #expect(resumed.navigationStack.screens == ["all", "detail"])
        #expect(resumed.navigationStack.top?.data ?? .null == ["character": "日"])
        #expect(resumed.state.data["detail"] == ["character": "日"])
        #expect(try engine.sessions().count == 1)
    }

    /// The overview of the Rewind module's documentation (`Documentation.docc/Rewind.md`).
    @Test func moduleOverviewExampleRunsAsWritten() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let engine = try Engine(directory: directory.path)
            defer { engine.close() }
            try engine.register(try ExampleMachines.Kanji.machine())
            let session = try await engine.openSession(id: "user-42", machine: "kanji")
            if session.canEnter("detail") {
                try await session.enter(ExampleMachines.Kanji.State.detail,
                                        data: ExampleMachines.Kanji.Character(character: "日", meanings: ["day"]))
            }
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
