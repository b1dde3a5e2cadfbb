import Rewind

// PLACEHOLDER: replaced at merge by viewer-diagram's StatechartDiagram (the laid-out diagram).
// This minimal version keeps the same interface and SVG contract so the page and its tests work
// until then: every state a labelled box in one column (indented by depth), every transition a
// line of text under them.

/// A machine definition drawn as an SVG statechart.
///
/// Contract: each state is a `<g class="rw-state …" data-state="<id>">`, each transition a
/// `<g class="rw-transition" data-transition="<index>">`; the SVG's own style highlights
/// `.rw-active` on state groups and `.rw-taken` on transition groups.
public struct StatechartDiagram: Sendable {
    /// The definition drawn.
    public let definition: MachineDefinition
    /// Every transition of the definition, in document order.
    public let transitions: [DiagramTransition]
    private let depths: [(id: String, depth: Int, kind: StateDefinition.Kind)]

    /// Lays out `definition`.
    public init(_ definition: MachineDefinition) {
        self.definition = definition
        var transitions: [DiagramTransition] = []
        var depths: [(id: String, depth: Int, kind: StateDefinition.Kind)] = []
        func walk(_ states: [StateDefinition], depth: Int) {
            for state in states {
                depths.append((state.id, depth, state.kind))
                for transition in state.transitions {
                    let event = transition.events.isEmpty ? nil : transition.events.joined(separator: " ")
                    transitions.append(DiagramTransition(
                        index: transitions.count, source: state.id, event: event, targets: transition.targets))
                }
                walk(state.children, depth: depth + 1)
            }
        }
        walk(definition.states, depth: 0)
        self.transitions = transitions
        self.depths = depths
    }

    /// The index of the transition a step took: one leaving a state of `source` on `event` whose
    /// targets are all in `target` (the deepest source first), or `nil`.
    public func transitionIndex(event: String, source: [String], target: [String]) -> Int? {
        let order = Dictionary(depths.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        let active = Set(source)
        let reached = Set(target)
        let candidates = transitions.filter { transition in
            active.contains(transition.source)
                && (transition.event?.split(separator: " ").contains { $0 == event || $0 == "*" } ?? false)
                && transition.targets.allSatisfy(reached.contains)
        }
        return candidates.max { (order[$0.source] ?? 0) < (order[$1.source] ?? 0) }?.index
    }

    /// The diagram as a standalone `<svg class="rw-diagram">` with its own `<style>`.
    public var svg: String {
        let rowHeight = 26
        let width = 420
        let stateRows = depths.count
        let height = (stateRows + transitions.count) * rowHeight + 40
        var out = #"<svg class="rw-diagram" viewBox="0 0 \#(width) \#(height)" width="\#(width)" height="\#(height)" role="img" aria-label="statechart of \#(HTMLText.escape(definition.name))">"#
        out += """
            <style>.rw-diagram text{font:12px system-ui,sans-serif;fill:currentColor}\
            .rw-diagram .rw-state rect{fill:none;stroke:currentColor;stroke-opacity:.5;rx:5}\
            .rw-diagram .rw-state.rw-active rect{fill:#f2a93b;fill-opacity:.35;stroke:#d9822b;stroke-opacity:1;stroke-width:2}\
            .rw-diagram .rw-transition text{opacity:.7}\
            .rw-diagram .rw-transition.rw-taken text{opacity:1;font-weight:700;fill:#d9822b}</style>
            """
        for (row, state) in depths.enumerated() {
            let x = 4 + state.depth * 16
            let y = 4 + row * rowHeight
            let marker = state.kind == .final ? " ◉" : state.kind == .parallel ? " ∥" : state.kind == .history ? " Ⓗ" : ""
            out += #"<g class="rw-state rw-\#(state.kind.rawValue)" data-state="\#(HTMLText.escape(state.id))">"#
            out += #"<rect x="\#(x)" y="\#(y)" width="\#(width - x - 4)" height="\#(rowHeight - 4)"/>"#
            out += #"<text x="\#(x + 8)" y="\#(y + 16)">\#(HTMLText.escape(state.id + marker))</text></g>"#
        }
        for transition in transitions {
            let y = 24 + (stateRows + transition.index) * rowHeight
            let label = "\(transition.source) —\(transition.event ?? "")→ \(transition.targets.joined(separator: ", "))"
            out += #"<g class="rw-transition" data-transition="\#(transition.index)"><text x="8" y="\#(y)">\#(HTMLText.escape(label))</text></g>"#
        }
        return out + "</svg>"
    }
}

/// One transition of a ``StatechartDiagram``.
public struct DiagramTransition: Sendable, Hashable {
    /// Its index in ``StatechartDiagram/transitions`` (the SVG's `data-transition`).
    public var index: Int
    /// The state it leaves.
    public var source: String
    /// Its event names (space separated), `nil` for an eventless transition.
    public var event: String?
    /// The states it enters.
    public var targets: [String]

    /// Creates a transition.
    public init(index: Int, source: String, event: String?, targets: [String]) {
        self.index = index
        self.source = source
        self.event = event
        self.targets = targets
    }
}
