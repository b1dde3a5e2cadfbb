import Testing

@testable import RewindMachine

@Suite("Mermaid diagram export")
struct MermaidDiagramTests {
    private let mermaid = InterchangeFixtures.everyField.mermaidDiagram()

    private var lines: [String] { mermaid.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } }

    /// The trimmed lines of the block `state <name> {`.
    private func block(_ name: String, in text: String) -> [String]? {
        let lines = text.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasSuffix("state \(name) {") }) else { return nil }
        let indentation = lines[start].prefix(while: { $0 == " " })
        guard let end = lines[start...].firstIndex(where: { $0 == indentation + "}" }) else { return nil }
        return lines[start...end].map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func nestsCompoundStatesAndSeparatesParallelRegions() throws {
        #expect(mermaid.hasPrefix("stateDiagram-v2\n"))
        let payment = try #require(block("payment", in: mermaid))
        #expect(payment.contains("[*] --> card"))
        #expect(
            payment.contains("card --> review : pay confirm.card [all(named('cardValid'), not(inState('offline')))]"))
        let review = try #require(block("review", in: mermaid))
        #expect(review.contains("--"))
        #expect(review.contains("state summary {"))
        #expect(review.contains("offline"))
        let regions = review.split(separator: "--")
        #expect(regions.count == 2)
    }

    @Test func marksInitialFinalAndHistoryStates() throws {
        #expect(lines.contains("[*] --> cart"))
        #expect(lines.contains("done --> [*]"))
        let payment = try #require(block("payment", in: mermaid))
        let history = try #require(payment.first { $0.hasPrefix("state \"H* h\" as ") })
        let alias = try #require(history.split(separator: " ").last)
        #expect(payment.contains("\(alias) --> card"))
        #expect(payment.contains { $0.hasPrefix("state \"H shallow\" as ") })
    }

    @Test func aliasesOddIDsAndEscapesLabels() throws {
        let definition = MachineDefinition(
            name: "m",
            states: [
                StateDefinition(
                    id: "a:b; \"c\" {d}",
                    transitions: [TransitionDefinition(events: ["go"], targets: ["end"], condition: .named("x#y"))]
                ),
                StateDefinition(id: "end"),
                StateDefinition(id: "s1"),
                StateDefinition(id: "summary.idle"),
            ]
        )
        let text = definition.mermaidDiagram()
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("state \"a#58;b#59; #quot;c#quot; #123;d#125;\" as s2"))  // s1 is taken
        #expect(lines.contains("state \"end\" as s3"))  // a Mermaid keyword
        #expect(lines.contains("state \"summary.idle\" as s4"))
        #expect(lines.contains("s1"))
        #expect(lines.contains("s2 --> s3 : go [named('x#35;y')]"))
        #expect(lines.contains("[*] --> s2"))
    }

    @Test func drawsValidNextStatesAsEnterEdges() {
        let map = MachineDefinition(
            name: "map",
            states: [
                StateDefinition(id: "start", validNextStates: ["preview"]),
                StateDefinition(id: "preview", validNextStates: ["start", "navigation"]),
                StateDefinition(id: "navigation", validNextStates: ["start"]),
            ])
        let lines = map.mermaidDiagram().split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for (source, target) in [
            ("start", "preview"), ("preview", "start"), ("preview", "navigation"), ("navigation", "start"),
        ] {
            #expect(lines.contains("\(source) --> \(target) : enter"))
        }
        #expect(!lines.contains("start --> navigation : enter"))
    }

    @Test func highlightsActiveStates() {
        let text = InterchangeFixtures.everyField.mermaidDiagram(highlighting: ["card", "payment", "missing"])
        #expect(text.contains("classDef active "))
        #expect(text.contains("class payment,card active"))
        #expect(!mermaid.contains("classDef"))
    }

    @Test func balancesBlocks() {
        for definition in [InterchangeFixtures.everyField]
            + ConformanceCases.documents().compactMap({ try? MachineDefinition(scxmlFileAt: $0) })
        {
            let text = definition.mermaidDiagram()
            #expect(text.filter { $0 == "{" }.count == text.filter { $0 == "}" }.count)
        }
    }
}
