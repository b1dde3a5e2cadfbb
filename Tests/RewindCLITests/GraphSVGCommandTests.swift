import Foundation
import Rewind
import RewindTestSupport
import RewindViewer
import Testing

/// `rewind graph MACHINE|FILE --format svg [--session S --at V]`: the diagram RewindViewer lays out.
struct GraphSVGCommandTests {
    /// The `data-state` of every state group, with whether it is marked `rw-active`.
    static func states(in svg: String) throws -> [String: Bool] {
        let pattern = try NSRegularExpression(pattern: #"<g class="(rw-state[^"]*)" data-state="([^"]*)">"#)
        var result: [String: Bool] = [:]
        for match in pattern.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)) {
            guard let classes = Range(match.range(at: 1), in: svg), let id = Range(match.range(at: 2), in: svg) else {
                continue
            }
            result[String(svg[id])] = svg[classes].split(separator: " ").contains("rw-active")
        }
        return result
    }

    @Test func svgIsTheViewersDiagramOfTheMachine() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        for (name, definition) in [
            ("kanji", ExampleMachines.Kanji.definition), ("onboarding", ExampleMachines.Onboarding.definition),
        ] {
            let svg = try await demo.tool.text(["graph", name, "--format", "svg"])
            #expect(svg == StatechartDiagram(definition).svg, "\(name)")
            #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"rw-diagram\""))
        }
        // A definition file draws the same; examples are drawn without a store.
        let file = demo.file("browser.json")
        try Data(ExampleMachines.Browser.definition.jsonDocument()).write(to: URL(fileURLWithPath: file))
        let fromFile = try await demo.tool.text(["graph", file, "--format", "svg"])
        let nowhere = try RewindTool(store: demo.file("no-store"))
        #expect(fromFile == (try await nowhere.text(["graph", "browser", "--format", "svg"])))
        #expect(
            Set(try Self.states(in: fromFile).keys) == [
                "app", "browse", "browse.history", "feed", "feedList", "post",
                "postBody", "postComments", "profile", "settings",
            ])
    }

    @Test func aSessionAtAVersionMarksItsActiveStates() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let sessions = try await demo.tool.sessionRows(["sessions", "--machine", "kanji"])
        let row = try #require(sessions.max { $0.version < $1.version })
        for version in 1...min(row.version, 4) {
            let point = try await demo.tool.json(
                CommandOutputs.Point.self, ["state", row.session, "--at", String(version)])
            let svg = try await demo.tool.text(
                ["graph", "kanji", "--format", "svg", "--session", row.session, "--at", String(version)])
            let states = try Self.states(in: svg)
            #expect(Set(states.filter(\.value).keys) == Set(point.activeStates), "version \(version)")
            #expect(states.count == 3)
        }
        expectUsageError(
            try await demo.tool.run(["graph", "kanji", "--format", "svg", "--at", "2"]),
            containing: ["--at needs --session"])
    }
}
