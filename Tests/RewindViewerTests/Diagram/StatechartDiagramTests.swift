import Foundation
import Rewind
import RewindTestSupport
import Testing

@testable import RewindViewer

/// The SVG of ``StatechartDiagram`` read back as XML: every state once, boxes nested as the
/// states are, siblings apart, regions side by side, every transition with its label, lines
/// between boxes, escaping and determinism.
struct StatechartDiagramTests {
    static let definitions: [String: MachineDefinition] = Dictionary(
        uniqueKeysWithValues: [
            ExampleMachines.Onboarding.definition, ExampleMachines.Map.definition, ExampleMachines.Kanji.definition,
            ExampleMachines.Browser.definition, ExampleMachines.StateKit.definition, ExampleMachines.Upload.definition,
            ExampleMachines.LoadingView.definition, HierarchicalMachine.definition,
        ].map { ($0.name, $0) })
    /// The seeds' machines and the 30-state one, by name (the tests' arguments).
    static let examples = definitions.keys.sorted()

    /// Every state of `definition` with its parent's id (nil at the top), depth first.
    static func tree(_ definition: MachineDefinition) -> [(id: String, parent: String?, state: StateDefinition)] {
        var result: [(String, String?, StateDefinition)] = []
        func collect(_ states: [StateDefinition], parent: String?) {
            for state in states {
                result.append((state.id, parent, state))
                collect(state.children, parent: state.id)
            }
        }
        collect(definition.states, parent: nil)
        return result
    }

    /// Every transition a reader expects drawn: (source, label), in document order.
    static func expectedTransitions(_ definition: MachineDefinition) -> [(source: String, label: String)] {
        tree(definition).flatMap { id, _, state -> [(String, String)] in
            var drawn: [(String, String)] = []
            if state.kind == .history, let transition = state.initialTransition {
                drawn.append((id, DiagramLabels.transition(transition)))
            }
            drawn += state.transitions.map { (id, DiagramLabels.transition($0)) }
            drawn += (state.validNextStates ?? []).map { _ in (id, "enter") }
            return drawn
        }
    }

    @Test(arguments: examples)
    func everyStateIsDrawnOnceInsideItsParent(_ name: String) throws {
        let definition = try #require(Self.definitions[name])
        let drawn = try DrawnDiagram(StatechartDiagram(definition).svg)
        let states = Self.tree(definition)
        #expect(drawn.states.map(\.id).sorted() == states.map(\.id).sorted())
        for (id, parent, state) in states {
            let box = try #require(drawn.state(id))
            #expect(box.parent == parent, "\(id)")
            #expect(box.box.width > 0 && box.box.height > 0, "\(id)")
            #expect(
                box.box.x >= 0 && box.box.y >= 0 && box.box.maxX <= drawn.width && box.box.maxY <= drawn.height, "\(id)"
            )
            if let parent {
                let outer = try #require(drawn.state(parent))
                #expect(outer.box.strictlyContains(box.box), "\(id) \(box.box) is not inside \(parent) \(outer.box)")
            }
            let kind: String
            switch state.kind {
            case .history: kind = "rw-history"
            case .final: kind = "rw-final"
            case .parallel: kind = "rw-parallel"
            case .state: kind = state.children.isEmpty ? "rw-atomic" : "rw-compound"
            }
            #expect(box.classes.isSuperset(of: ["rw-state", kind]), "\(id): \(box.classes)")
        }
        // Siblings do not overlap.
        let byParent = Dictionary(grouping: drawn.states, by: { $0.parent ?? "" })
        for (parent, siblings) in byParent {
            for (first, a) in siblings.enumerated() {
                for b in siblings.dropFirst(first + 1) {
                    #expect(!a.box.overlaps(b.box), "\(a.id) and \(b.id) overlap in \(parent)")
                }
            }
        }
    }

    @Test(arguments: examples)
    func parallelRegionsStandSideBySideBetweenDashedSeparators(_ name: String) throws {
        let definition = try #require(Self.definitions[name])
        let drawn = try DrawnDiagram(StatechartDiagram(definition).svg)
        for (id, _, state) in Self.tree(definition) where state.kind == .parallel {
            let regions = try state.children.map { try #require(drawn.state($0.id)) }
            for region in regions { #expect(region.classes.contains("rw-region"), "\(region.id)") }
            for (left, right) in zip(regions, regions.dropFirst()) {
                #expect(left.box.maxX < right.box.x, "\(left.id) is not left of \(right.id)")
                #expect(left.box.y == right.box.y && left.box.height == right.box.height, "\(left.id) \(right.id)")
            }
            #expect(try #require(drawn.state(id)).separators == regions.count - 1)
            #expect(drawn.style.contains(".rw-diagram .rw-separator{") && drawn.style.contains("stroke-dasharray"))
        }
    }

    @Test(arguments: examples)
    func everyTransitionIsDrawnWithItsLabelAndArrow(_ name: String) throws {
        let definition = try #require(Self.definitions[name])
        let diagram = StatechartDiagram(definition)
        let drawn = try DrawnDiagram(diagram.svg)
        let expected = Self.expectedTransitions(definition)
        #expect(drawn.transitions.map(\.index) == Array(0..<expected.count))
        #expect(diagram.transitions.map(\.index) == Array(0..<expected.count))
        for (transition, (source, label)) in zip(drawn.transitions, expected) {
            let model = diagram.transitions[transition.index]
            #expect(model.source == source && model.label == label)
            #expect(transition.event == (model.event ?? ""))
            #expect(!transition.paths.isEmpty && transition.arrowheads == transition.paths.count, "\(source): \(label)")
            if !label.isEmpty { #expect(transition.labels == [label], "\(source): \(label)") }
        }
    }

    /// The lines run between boxes: no point of a line lies inside a state that is not one of its
    /// ends or around them (loops and the lines between parallel regions aside).
    @Test(arguments: examples)
    func linesDoNotCrossTheBoxesOfOtherStates(_ name: String) throws {
        let definition = try #require(Self.definitions[name])
        let diagram = StatechartDiagram(definition)
        let drawn = try DrawnDiagram(diagram.svg)
        let parents = Dictionary(uniqueKeysWithValues: drawn.states.map { ($0.id, $0.parent) })
        func ancestry(_ id: String) -> Set<String> {
            var result: Set<String> = [id]
            var current = parents[id] ?? nil
            while let next = current {
                result.insert(next)
                current = parents[next] ?? nil
            }
            return result
        }
        for transition in drawn.transitions {
            let model = diagram.transitions[transition.index]
            guard !model.targets.isEmpty, !model.targets.contains(model.source) else { continue }
            let spared = model.targets.reduce(ancestry(model.source)) { $0.union(ancestry($1)) }
            let points = transition.paths.flatMap(DrawnDiagram.samples(of:))
            for state in drawn.states where !spared.contains(state.id) {
                let inside = points.first { state.box.holds($0, margin: 1.5) }
                #expect(inside == nil, "\(model.source) → \(model.targets) (\(model.label)) crosses \(state.id)")
            }
        }
    }

    @Test func theThirtyStateMachineStaysReadable() throws {
        let diagram = StatechartDiagram(HierarchicalMachine.definition)
        let drawn = try DrawnDiagram(diagram.svg)
        #expect(HierarchicalMachine.stateIDs.count >= 30)
        #expect(drawn.states.count == HierarchicalMachine.stateIDs.count)
        // About a laptop screen or two: not a strip of boxes, not a poster.
        #expect(drawn.width < 1400 && drawn.height < 2000, "\(drawn.width) × \(drawn.height)")
        #expect(drawn.width * drawn.height < 1_500_000)
        #expect(abs(diagram.size.width - drawn.width) < 0.06 && abs(diagram.size.height - drawn.height) < 0.06)
        // Names fit their boxes by the glyph metric.
        for state in drawn.states where state.classes.contains("rw-atomic") {
            #expect(state.box.width >= GlyphMetrics.width(of: state.id, fontSize: 13) + 12, "\(state.id)")
        }
    }

    @Test func idsAndLabelsAreEscaped() throws {
        let odd = ["a<b>", "x & \"y\"", "'quoted'", "日本語", "zoë\u{1}"]
        let definition = MachineDefinition(
            name: "odd <&> \"name\"",
            states: [
                StateDefinition(id: odd[0], transitions: [TransitionDefinition(events: ["go<&>"], targets: [odd[1]])]),
                StateDefinition(
                    id: odd[1],
                    children: [
                        StateDefinition(
                            id: odd[2],
                            transitions: [
                                TransitionDefinition(events: ["\"q\""], targets: [odd[3]], condition: .named("a&b"))
                            ]),
                        StateDefinition(id: odd[3]),
                    ]),
                StateDefinition(id: odd[4], kind: .final),
            ])
        let diagram = StatechartDiagram(definition)
        let drawn = try DrawnDiagram(diagram.svg)
        #expect(Set(drawn.states.map(\.id)) == Set(odd.dropLast() + ["zoë\u{FFFD}"]))
        #expect(drawn.transitions.map(\.event) == ["go<&>", "\"q\""])
        let guarded = try #require(definition.states[1].children[0].transitions.first)
        #expect(DiagramLabels.transition(guarded) == "\"q\" [named('a&b')]")
        #expect(drawn.transitions.map(\.labels) == [["go<&>"], [DiagramLabels.transition(guarded)]])
        #expect(DrawnDiagram.elements("title", in: drawn.root).first?.stringValue == "odd <&> \"name\"")
        #expect(!diagram.svg.contains("<b>") && !diagram.svg.contains("\u{1}"))
    }

    /// Definitions a machine would refuse, and unusual shapes, still draw a well-formed diagram:
    /// what can be placed is, an unknown target is left out.
    @Test func oddShapesAndInvalidDefinitionsStillDraw() throws {
        let definition = MachineDefinition(
            name: "odd",
            states: [
                StateDefinition(
                    id: "outer",
                    children: [
                        StateDefinition(
                            id: "h", kind: .history, initialTransition: TransitionDefinition(targets: ["inner"])),
                        StateDefinition(
                            id: "inner",
                            transitions: [
                                TransitionDefinition(events: ["up"], targets: ["outer"]),
                                TransitionDefinition(events: ["lost"], targets: ["nowhere"]),
                                TransitionDefinition(condition: .named("ready")),
                            ]),
                    ], transitions: [TransitionDefinition(events: ["again"], targets: ["outer"])]),
                StateDefinition(
                    id: "both", kind: .parallel,
                    children: [
                        StateDefinition(
                            id: "left",
                            children: [
                                StateDefinition(
                                    id: "l1", transitions: [TransitionDefinition(events: ["cross"], targets: ["r1"])])
                            ]),
                        StateDefinition(id: "right", children: [StateDefinition(id: "r1")]),
                    ], transitions: [TransitionDefinition(events: ["reset"], targets: ["l1"])]),
                StateDefinition(id: "outer"),
            ])
        let diagram = StatechartDiagram(definition)
        let drawn = try DrawnDiagram(diagram.svg)
        #expect(drawn.states.map(\.id) == ["outer", "h", "inner", "both", "left", "l1", "right", "r1", "outer"])
        #expect(drawn.transitions.count == 7 && diagram.transitions.count == 7)
        let lost = try #require(drawn.transitions.first { $0.event == "lost" })
        #expect(lost.paths.isEmpty)
        for transition in drawn.transitions where transition.event != "lost" {
            #expect(!transition.paths.isEmpty, "\(transition.event)")
        }
        let empty = try DrawnDiagram(StatechartDiagram(MachineDefinition(name: "empty", states: [])).svg)
        #expect(empty.states.isEmpty && empty.transitions.isEmpty && empty.width > 0)
    }

    @Test func theSameDefinitionGivesTheSameBytes() throws {
        for definition in Self.definitions.values {
            let first = StatechartDiagram(definition).svg
            #expect(first == StatechartDiagram(definition).svg)
            let copy = try MachineDefinition(jsonDocument: definition.jsonDocument())
            #expect(first == StatechartDiagram(copy).svg, "\(definition.name)")
        }
    }

    @Test func activeStatesAndTheTakenTransitionAreMarked() throws {
        let diagram = StatechartDiagram(ExampleMachines.Browser.definition)
        let taken = try #require(diagram.transitions.first { $0.event == "openSettings" }).index
        let drawn = try DrawnDiagram(diagram.svg(active: ["app", "settings"], taken: taken))
        #expect(Set(drawn.states.filter { $0.classes.contains("rw-active") }.map(\.id)) == ["app", "settings"])
        #expect(drawn.transitions.filter { $0.classes.contains("rw-taken") }.map(\.index) == [taken])
        let plain = try DrawnDiagram(diagram.svg)
        #expect(!plain.states.contains { $0.classes.contains("rw-active") })
        #expect(!plain.transitions.contains { $0.classes.contains("rw-taken") })
    }

    @Test func theStyleIsScopedHasBothSchemesAndNoExternalReference() throws {
        let svg = StatechartDiagram(ExampleMachines.Upload.definition).svg
        let drawn = try DrawnDiagram(svg)
        #expect(DrawnDiagram.value(of: "class", in: drawn.root) == "rw-diagram")
        let width = try #require(DrawnDiagram.value(of: "width", in: drawn.root))
        let height = try #require(DrawnDiagram.value(of: "height", in: drawn.root))
        #expect(DrawnDiagram.value(of: "viewBox", in: drawn.root) == "0 0 \(width) \(height)")
        #expect(drawn.style.contains("@media (prefers-color-scheme:dark){"))
        // Every selector is under .rw-diagram.
        var body = drawn.style
        if let media = body.range(of: "@media (prefers-color-scheme:dark){") { body.removeSubrange(media) }
        for rule in body.split(separator: "}") where rule.contains("{") {
            let selectors = rule.split(separator: "{")[0].split(separator: ",")
            for selector in selectors {
                #expect(
                    selector.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix(".rw-diagram"), "\(selector)")
            }
        }
        for rule in [".rw-active>.rw-box", ".rw-taken .rw-edge"] { #expect(drawn.style.contains(rule)) }
        // No fetch of any kind: the namespace is the only URL.
        #expect(svg.components(separatedBy: "http").count == 2 && svg.contains("xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(
            !svg.contains("url(") && !svg.contains("@import") && !svg.contains("@font-face") && !svg.contains("href"))
    }
}
