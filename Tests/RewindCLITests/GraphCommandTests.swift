import Foundation
import RewindTestSupport
import Testing

/// `rewind graph MACHINE|FILE --format dot|mermaid|scxml|json [--session S --at V]`.
struct GraphCommandTests {
    @Test func everyFormatDrawsEveryStateOfTheMachine() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        for format in ["dot", "mermaid", "scxml", "json"] {
            let text = try await demo.tool.text(["graph", "kanji", "--format", format])
            for state in ["all", "detail", "list"] {
                #expect(text.contains(state), "\(format) lacks \(state):\n\(text)")
            }
        }
        #expect(try await demo.tool.text(["graph", "kanji", "--format", "dot"]).contains("digraph"))
        #expect(try await demo.tool.text(["graph", "kanji", "--format", "scxml"]).contains("<scxml"))
        #expect(try await demo.tool.text(["graph", "kanji"]).contains("stateDiagram"))
    }

    @Test func jsonIsTheJSONFormatAndExamplesNeedNoStore() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let json = try await demo.tool.text(["graph", "map", "--json"])
        #expect(json == (try await demo.tool.text(["graph", "map", "--format", "json"])))
        let document = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(document?["format"] as? String == "rewind.machine")

        let nowhere = try RewindTool(store: demo.file("no-store"))
        for format in ["dot", "mermaid", "scxml", "json"] {
            let drawn = try await nowhere.text(["graph", "map", "--format", format])
            #expect(drawn == (try await demo.tool.text(["graph", "map", "--format", format])), "\(format)")
        }
        #expect(!FileManager.default.fileExists(atPath: nowhere.store))
        expectOneLineError(try await nowhere.run(["graph", "nothing"]), containing: ["no store"])
    }

    @Test func anEmptyStoreDirectoryIsNoStoreTooAndExamplesAreDrawnInIt() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let empty = try RewindTool(store: directory.path)
        let missing = try RewindTool(store: directory.url.appendingPathComponent("missing").path)
        for format in ["dot", "mermaid", "scxml", "json"] {
            let drawn = try await empty.text(["graph", "kanji", "--format", format])
            #expect(drawn == (try await missing.text(["graph", "kanji", "--format", format])), "\(format)")
        }
        #expect(try await empty.text(["graph", "kanji"]).contains("stateDiagram"))
        expectOneLineError(try await empty.run(["graph", "nothing"]), containing: ["no store at '\(directory.path)'"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func aJSONDefinitionWrittenByGraphDrawsTheSameAsTheMachine() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let json = try await demo.tool.text(["graph", "onboarding", "--format", "json"])
        let file = demo.file("onboarding.json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: file))
        for format in ["dot", "mermaid", "json"] {
            let fromStore = try await demo.tool.text(["graph", "onboarding", "--format", format])
            let fromFile = try await demo.tool.text(["graph", file, "--format", format])
            #expect(fromFile == fromStore, "\(format)")
        }
    }

    @Test func aSessionAtAVersionHighlightsItsActiveStates() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        let row = try #require(sessions.max { $0.version < $1.version })
        let plain = try await demo.tool.text(["graph", "kanji", "--format", "dot"])
        var drawings: Set<String> = []
        for version in 1...min(row.version, 3) {
            let point = try await demo.tool.json(
                CommandOutputs.Point.self, ["state", row.session, "--at", String(version)])
            let highlighted = try await demo.tool.text(
                ["graph", "kanji", "--format", "dot", "--session", row.session, "--at", String(version)])
            #expect(highlighted != plain, "version \(version)")
            drawings.insert(highlighted + point.activeStates.joined())
        }
        // Versions 1, 2, 3 are all → detail → (list or all): the highlight follows the state.
        let states = try await demo.tool.json([CommandOutputs.Point].self, ["replay", row.session])
        #expect(drawings.count == Set(states.prefix(3).map { $0.activeStates.joined() }).count)
        expectOneLineError(
            try await demo.tool.run(["graph", "kanji", "--session", row.session, "--at", "0"]),
            containing: ["bad version"])
    }

    @Test func anUnknownMachineOrMissingFileIsAOneLineError() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        // The valid names are listed.
        expectOneLineError(
            try await demo.tool.run(["graph", "nothing"]),
            containing: ["unknown machine 'nothing'", "kanji", "onboarding", "map"])
        expectOneLineError(
            try await demo.tool.run(["graph", demo.file("missing.scxml")]), containing: ["missing.scxml"])
        let garbage = demo.file("garbage.scxml")
        try Data("<scxml".utf8).write(to: URL(fileURLWithPath: garbage))
        expectOneLineError(try await demo.tool.run(["graph", garbage]), containing: [])
    }

    @Test func optionsThatCannotApplyAreRefusedNotIgnored() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        let row = try #require(sessions.first)
        expectUsageError(
            try await demo.tool.run(["graph", "kanji", "--at", "2"]), containing: ["--at needs --session"])
        let file = demo.file("kanji.json")
        let document = try await demo.tool.run(["graph", "kanji", "--format", "json"])
        try Data(document.stdout.utf8).write(to: URL(fileURLWithPath: file))
        expectUsageError(
            try await demo.tool.run(["graph", file, "--session", row.session]),
            containing: ["--session cannot apply to a definition file"])
        expectUsageError(
            try await demo.tool.run(["graph", "kanji", "--json", "--format", "dot"]),
            containing: ["--json conflicts with --format dot"])
        // --json with --format json agrees.
        let agreed = try await demo.tool.run(["graph", "kanji", "--json", "--format", "json"])
        #expect(agreed.status == 0, "\(agreed)")
    }

    @Test func anInvalidDefinitionFileIsRefusedWithItsProblemsButUnboundActionsAreDrawn() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let broken = demo.file("broken.scxml")
        try Data(
            """
            <scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="a">
              <state id="a"><transition event="go" target="nowhere"/></state>
            </scxml>
            """.utf8
        ).write(to: URL(fileURLWithPath: broken))
        // The SCXML import itself refuses the unknown target, with the transition's position.
        expectOneLineError(
            try await demo.tool.run(["graph", broken]),
            containing: [
                "line 2, column 17", "target 'nowhere' is not a state",
            ])
        // `verify --definition` says the same.
        expectOneLineError(
            try await demo.tool.run(["verify", "--definition", broken]),
            containing: [
                "line 2, column 17", "target 'nowhere' is not a state",
            ])

        // A custom action is the app's code: without it the machine still draws.
        let document = """
            {"format": "rewind.machine", "formatVersion": 1, "machine": {"name": "custom", "initial": ["a"],
             "states": [{"id": "a", "onEntry": [{"custom": {"name": "track"}}],
                         "transitions": [{"events": ["go"], "targets": ["b"]}]},
                        {"id": "b"}]}}
            """
        let custom = demo.file("custom.json")
        try Data(document.utf8).write(to: URL(fileURLWithPath: custom))
        let drawn = try await demo.tool.text(["graph", custom, "--format", "dot"])
        #expect(drawn.contains("digraph"))
        #expect(drawn.contains("\"b\""))
    }
}
