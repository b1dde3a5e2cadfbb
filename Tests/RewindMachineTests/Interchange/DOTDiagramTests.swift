import Testing

@testable import RewindMachine

@Suite("DOT diagram export")
struct DOTDiagramTests {
    private let dot = InterchangeFixtures.everyField.dotDiagram()

    /// The lines between `subgraph "cluster:<id>" {` and its closing brace.
    private func cluster(_ id: String, in text: String) -> [Substring]? {
        let lines = text.split(separator: "\n")
        guard let start = lines.firstIndex(where: { $0.contains("subgraph \"cluster:\(id)\" {") }) else { return nil }
        let indentation = lines[start].prefix(while: { $0 == " " })
        guard let end = lines[start...].firstIndex(where: { $0 == indentation + "}" }) else { return nil }
        return Array(lines[start...end])
    }

    @Test func drawsValidNextStatesAsDashedEnterEdges() {
        let map = MachineDefinition(
            name: "map",
            states: [
                StateDefinition(id: "start", validNextStates: ["preview"]),
                StateDefinition(id: "preview", validNextStates: ["start"]),
            ])
        let text = map.dotDiagram()
        #expect(text.contains("\"s:start\" -> \"s:preview\" [label=\"enter\", style=dashed];"))
        #expect(text.contains("\"s:preview\" -> \"s:start\" [label=\"enter\", style=dashed];"))
    }

    @Test func drawsCompoundAndParallelStatesAsNestedClusters() throws {
        #expect(dot.hasPrefix("digraph \"checkout\" {"))
        #expect(dot.contains("compound=true;"))
        let payment = try #require(cluster("payment", in: dot))
        #expect(payment.contains { $0.contains("\"s:card\" [label=\"card\"") })
        #expect(payment.contains { $0.contains("style=\"rounded\"") })
        let review = try #require(cluster("review", in: dot))
        #expect(review.contains { $0.contains("style=\"dashed,rounded\"") })
        let summary = try #require(cluster("summary", in: dot))
        #expect(review.contains { $0.contains("subgraph \"cluster:summary\"") })
        #expect(summary.contains { $0.contains("\"s:summary.idle\"") })
        #expect(!payment.contains { $0.contains("\"s:offline\"") })
    }

    @Test func marksInitialFinalAndHistoryStates() {
        #expect(dot.contains("\"initial:\" -> \"s:cart\";"))
        #expect(dot.contains("\"initial:payment\" -> \"s:card\";"))
        #expect(dot.contains("\"initial:summary\" -> \"s:summary.idle\";"))
        #expect(!dot.contains("\"initial:review\""))  // parallel: every region starts
        #expect(dot.contains("\"s:done\" [shape=doublecircle, label=\"done\"];"))
        #expect(dot.contains("\"s:h\" [shape=circle, label=\"H*\", xlabel=\"h\"];"))
        #expect(dot.contains("\"s:shallow\" [shape=circle, label=\"H\", xlabel=\"shallow\"];"))
        #expect(dot.contains("\"s:h\" -> \"s:card\" [style=dashed];"))
    }

    @Test func labelsTransitionsWithEventsAndGuards() {
        #expect(
            dot.contains(
                #""s:card" -> "s:review" [label="pay confirm.card [all(named('cardValid'), not(inState('offline')))]", lhead="cluster:review"];"#
            ))
        #expect(dot.contains(#""s:card" -> "s:card" [label="* [In('card')] (internal)"];"#))
        #expect(dot.contains(#""s:payment" -> "s:review" [ltail="cluster:payment", lhead="cluster:review"];"#))
    }

    @Test func escapesOddIDs() {
        let odd = #"a "quoted" \ id"#
        let definition = MachineDefinition(
            name: "we\"ird",
            states: [
                StateDefinition(id: odd, transitions: [TransitionDefinition(events: ["go"], targets: ["line\nbreak"])]),
                StateDefinition(id: "line\nbreak"),
            ]
        )
        let text = definition.dotDiagram()
        #expect(text.hasPrefix(#"digraph "we\"ird" {"#))
        #expect(text.contains(#""s:a \"quoted\" \\ id" [label="a \"quoted\" \\ id"];"#))
        #expect(text.contains(#""s:a \"quoted\" \\ id" -> "s:line\nbreak" [label="go"];"#))
        #expect(!text.contains("line\nbreak"))
    }

    @Test func highlightsActiveStates() {
        let text = InterchangeFixtures.everyField.dotDiagram(highlighting: ["card", "payment"])
        #expect(text.contains("\"s:card\" [label=\"card\", style=\"rounded,filled,bold\""))
        #expect(text.contains("style=\"rounded,filled,bold\";"))  // the payment cluster
        #expect(!text.contains("\"s:cart\" [label=\"cart\", style="))
        #expect(!dot.contains("filled,bold"))
    }

    @Test func balancesBraces() {
        for definition in [InterchangeFixtures.everyField]
            + ConformanceCases.documents().compactMap({ try? MachineDefinition(scxmlFileAt: $0) })
        {
            let text = definition.dotDiagram()
            #expect(text.filter { $0 == "{" }.count == text.filter { $0 == "}" }.count)
        }
    }
}
