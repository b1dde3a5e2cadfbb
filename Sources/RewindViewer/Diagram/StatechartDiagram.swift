import Rewind

/// A machine's statechart drawn by Rewind itself, as SVG: compound states as nested boxes,
/// parallel regions side by side, history and final states marked, transitions as labelled arrows.
///
/// The layout needs no outside tool: each compound state lays out its children in ranks from top
/// to bottom (longest-path layering, barycentre ordering), and lines run between the boxes of the
/// ranks they cross, their labels in space kept for them. The same definition always gives the
/// same bytes.
///
/// The SVG is meant to be scripted: each state is a `<g class="rw-state rw-<kind>"
/// data-state="<id>">` whose first `<rect class="rw-box">` is its box (kinds: `rw-atomic`,
/// `rw-compound`, `rw-parallel`, `rw-final`, `rw-history`; a parallel state's regions also have
/// `rw-region`), nested in its parent's group; each transition is a `<g class="rw-transition"
/// data-transition="<index>" data-event="<events>">` holding its paths, arrowheads and label.
/// Adding `rw-active` to a state's group or `rw-taken` to a transition's group highlights it with
/// the diagram's own stylesheet, which is scoped under the `<svg>`'s class `rw-diagram` and follows
/// the reader's light or dark colour scheme.
public struct StatechartDiagram: Sendable {
    private let layout: DiagramLayout
    /// The depth of each transition's source state (top-level states are 1).
    private let sourceDepths: [Int]

    /// Lays out `definition`'s statechart. Targets no state declares are left undrawn.
    public init(_ definition: MachineDefinition) {
        let model = DiagramModel(definition)
        layout = DiagramLayout(model)
        sourceDepths = model.transitions.map { transition in
            model.index[transition.source].map { model.ancestry(of: $0).count - 1 } ?? 0
        }
        svg = SVGWriter.svg(layout)
    }

    /// A standalone `<svg>` element (xmlns, viewBox, width/height) with its own `<style>`.
    public let svg: String

    /// Every transition drawn, in drawing order; `index` is its `data-transition` value.
    public var transitions: [DiagramTransition] { layout.model.transitions }

    /// The drawing's width and height, in CSS pixels (the SVG's `width` and `height`).
    public var size: (width: Double, height: Double) { layout.size }

    /// The diagram with the states `active` (ids) marked `rw-active` and the transition at index
    /// `taken`, if any, marked `rw-taken`: a session's configuration at one version, for example.
    public func svg(active: Set<String>, taken: Int? = nil) -> String {
        SVGWriter.svg(layout, active: active, taken: taken)
    }

    /// The drawn transition a recorded step took (event name; source and target configurations
    /// as a record stores them), or nil when none matches (e.g. rewind.start, a migration).
    ///
    /// A transition matches when its source was active and its events match the event (`enter`
    /// takes a direct move to a state that became active). Among several, the one whose targets
    /// are all active after the step wins, then the one from the deepest source (as the machine
    /// selects), then the first in document order. A delivered delayed send (`rewind.due`) does
    /// not name its event: the one transition that fits its configurations is taken, if only one
    /// does.
    public func transitionIndex(event: String, source: [String], target: [String]) -> Int? {
        let before = Set(source)
        let after = Set(target)
        guard !before.isEmpty else { return nil }
        let candidates: [DiagramTransition]
        if event == StepRecording.dueEvent {
            let fitting = transitions.filter { transition in
                transition.kind == .event && before.contains(transition.source)
                    && !transition.targets.isEmpty && transition.targets.allSatisfy(after.contains) && before != after
            }
            return fitting.count == 1 ? fitting[0].index : nil
        } else if event == Machine.enterEventName {
            candidates = transitions.filter { transition in
                transition.kind == .directMove && before.contains(transition.source)
                    && transition.targets.allSatisfy(after.contains)
            }
        } else {
            candidates = transitions.filter { transition in
                transition.kind == .event && before.contains(transition.source) && transition.matches(event: event)
            }
        }
        func fits(_ transition: DiagramTransition) -> Bool {
            transition.targets.isEmpty ? before == after : transition.targets.allSatisfy(after.contains)
        }
        return candidates.min { left, right in
            let leftKey = (fits(left) ? 0 : 1, -sourceDepths[left.index], left.index)
            let rightKey = (fits(right) ? 0 : 1, -sourceDepths[right.index], right.index)
            return leftKey < rightKey
        }?.index
    }
}
