import Foundation
import Rewind
import RewindTestSupport
import Testing

/// The README's 20-line example, kept compiling and true.
@Suite("README example")
struct ReadmeExampleTests {
    enum Screen: String { case all, detail, list }

    /// The README's machine, line for line.
    static func readmeKanji() -> MachineDefinition {
        MachineDefinition("kanji") {
            StateNode(Screen.all, navigation: .popToRoot, validNextStates: [.detail])
            StateNode(Screen.detail, navigation: .push(), validNextStates: [.all, .list])
            StateNode(Screen.list, navigation: .push(), validNextStates: [.detail, .all])
        }
    }

    /// The screens of the app's next version: a settings screen beside the README's three.
    enum NextScreen: String { case all, detail, list, settings }

    /// The app's next version of the README's machine: the same screens and a settings screen
    /// reached from the list of all kanji.
    static func kanjiWithSettings() -> MachineDefinition {
        MachineDefinition("kanji") {
            StateNode(NextScreen.all, navigation: .popToRoot, validNextStates: [.detail, .settings])
            StateNode(NextScreen.detail, navigation: .push(), validNextStates: [.all, .list])
            StateNode(NextScreen.list, navigation: .push(), validNextStates: [.detail, .all])
            StateNode(NextScreen.settings, navigation: .push(), validNextStates: [.all])
        }
    }

    /// The README's example, line for line, its `print`s replaced by appending to `printed` and
    /// `shown`, its machine `kanji` (the README's by default).
    static func runReadmeExample(
        in directory: String, kanji: MachineDefinition = readmeKanji(),
        printed: LockedBox<[String]>, shown: LockedBox<[JSONValue]>
    ) async throws {
        let engine = try Engine(directory: directory)  // durable by default
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
        try engine.register(try Machine(Self.readmeKanji()))
        let resumed = try engine.session("user-42")
        #expect(resumed.version == 4)  // start, detail; then all, detail
        #expect(resumed.activeStates == ["detail"])
        #expect(resumed.navigationStack.screens == ["all", "detail"])
        #expect(resumed.navigationStack.top?.data ?? .null == ["character": "日"])
        #expect(resumed.state.data["detail"] == ["character": "日"])
        #expect(try engine.sessions().count == 1)
    }

    /// The app's next version adds a screen: the README's launch call, unchanged, resumes the
    /// session the previous version left (it does not throw `definitionMismatch`), moves it to the
    /// new definition with a recorded `rewind.migrate`, and the new screen can be entered.
    @Test func readmeLaunchCallResumesTheSessionAfterTheAppAddsAScreen() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = LockedBox<[String]>([])
        try await Self.runReadmeExample(in: directory.path, printed: first, shown: LockedBox([]))
        #expect(first.current == [#"["all"] ["all"]"#])

        // The next version's definition really differs: a strict resume refuses it.
        do {
            let engine = try Engine(directory: directory.path)
            defer { engine.close() }
            try engine.register(try Machine(Self.kanjiWithSettings()))
            await #expect {
                _ = try await engine.openSession(id: "user-42", machine: "kanji", policy: .strict)
            } throws: { error in
                guard case EngineError.definitionMismatch = error else { return false }
                return true
            }
        }

        let second = LockedBox<[String]>([])
        let shownSecond = LockedBox<[JSONValue]>([])
        try await Self.runReadmeExample(
            in: directory.path, kanji: Self.kanjiWithSettings(), printed: second, shown: shownSecond)
        #expect(second.current == [#"["detail"] ["all", "detail"]"#])
        #expect(shownSecond.current == [["character": "日"]])

        let engine = try Engine(directory: directory.path)
        defer { engine.close() }
        try engine.register(try Machine(Self.kanjiWithSettings()))
        let session = try await engine.openSession(id: "user-42", machine: "kanji")
        #expect(try engine.history(of: session.id).map(\.event).filter { $0 == "rewind.migrate" }.count == 1)
        #expect(session.activeStates == ["detail"])
        #expect(session.navigationStack.screens == ["all", "detail"])
        try await session.enter(NextScreen.all)
        try await session.enter(NextScreen.settings)
        #expect(session.navigationStack.screens == ["all", "settings"])
        // The session runs the new definition, strictly resumable from now on.
        #expect(try engine.session("user-42", policy: .strict).activeStates == ["settings"])
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
                try await session.enter(
                    ExampleMachines.Kanji.State.detail,
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
