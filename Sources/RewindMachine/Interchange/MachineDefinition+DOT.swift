extension MachineDefinition {
    /// The statechart as a Graphviz DOT graph (`dot -Tsvg`), for documentation and for showing
    /// where a session is.
    ///
    /// Compound and parallel states are clusters (parallel ones dashed) holding their children;
    /// an invisible anchor node inside each cluster carries the edges that start or end at the
    /// state itself (`lhead`/`ltail`, with `compound=true`). Atomic states are rounded boxes,
    /// final states double circles, history pseudo-states circles marked `H` or `H*` with their
    /// id beside them. A small filled dot marks the initial state of the machine and of every
    /// compound state. Transitions are edges labelled with their events and guard (see the
    /// labels below); a targetless transition is a loop on its source; a history's default
    /// transition is dashed.
    ///
    /// Node names are `"s:<id>"`, initial markers `"initial:<parent id>"` (`"initial:"` for the
    /// machine) and clusters `"cluster:<id>"`, every name quoted and escaped, so no state id can
    /// break the graph.
    ///
    /// - Parameter active: ids of states to highlight (filled and bold), for example the
    ///   configuration at some version of a session.
    public func dotDiagram(highlighting active: Set<String> = []) -> String {
        var writer = DOTWriter(active: active)
        writer.line(0, "digraph \(DOTWriter.quote(name)) {")
        writer.line(1, "compound=true;")
        writer.line(1, "node [shape=box, style=rounded, fontname=\"Helvetica\"];")
        writer.line(1, "edge [fontname=\"Helvetica\", fontsize=10];")
        func collect(_ states: [StateDefinition], parent: String?) {
            for state in states {
                if !state.children.isEmpty { writer.compound.insert(state.id) }
                if let parent { writer.parents[state.id] = parent }
                collect(state.children, parent: state.id)
            }
        }
        collect(states, parent: nil)
        writer.initialMarker(parent: nil, targets: DiagramLabels.initialTargets(of: self), depth: 1)
        for state in states { writer.write(state, depth: 1) }
        for state in states { writer.writeEdges(state) }
        writer.line(0, "}")
        return writer.output
    }
}

/// Writes the statements of a DOT graph.
struct DOTWriter {
    private(set) var output = ""
    let active: Set<String>
    /// The ids of states with children (drawn as clusters).
    var compound: Set<String> = []
    /// Each state's parent id.
    var parents: [String: String] = [:]

    init(active: Set<String>) {
        self.active = active
    }

    /// A DOT double-quoted string: backslashes and quotes escaped, line breaks as `\n`.
    static func quote(_ text: String) -> String {
        var result = "\""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n", "\r\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.append(character)
            }
        }
        return result + "\""
    }

    static func node(_ id: String) -> String { quote("s:" + id) }
    static func cluster(_ id: String) -> String { quote("cluster:" + id) }

    mutating func line(_ depth: Int, _ text: String) {
        output += String(repeating: "  ", count: depth) + text + "\n"
    }

    private var highlight: String { ", style=\"rounded,filled,bold\", fillcolor=\"#ffd966\", penwidth=2" }

    mutating func initialMarker(parent: String?, targets: [String], depth: Int) {
        guard !targets.isEmpty else { return }
        let marker = Self.quote("initial:" + (parent ?? ""))
        line(depth, "\(marker) [shape=point, width=0.12, label=\"\"];")
        for target in targets {
            let suffix = compound.contains(target) ? " [lhead=\(Self.cluster(target))]" : ""
            line(depth, "\(marker) -> \(Self.node(target))\(suffix);")
        }
    }

    mutating func write(_ state: StateDefinition, depth: Int) {
        let isActive = active.contains(state.id)
        switch state.kind {
        case .history:
            line(
                depth,
                "\(Self.node(state.id)) [shape=circle, label=\(Self.quote(DiagramLabels.historyMarker(state))), xlabel=\(Self.quote(state.id))\(isActive ? highlight : "")];"
            )
            return
        case .final where state.children.isEmpty:
            line(
                depth,
                "\(Self.node(state.id)) [shape=doublecircle, label=\(Self.quote(state.id))\(isActive ? highlight : "")];"
            )
            return
        default:
            break
        }
        guard !state.children.isEmpty else {
            line(depth, "\(Self.node(state.id)) [label=\(Self.quote(state.id))\(isActive ? highlight : "")];")
            return
        }
        line(depth, "subgraph \(Self.cluster(state.id)) {")
        line(depth + 1, "label=\(Self.quote(state.id));")
        var style = state.kind == .parallel ? "dashed,rounded" : "rounded"
        if isActive { style += ",filled,bold" }
        line(depth + 1, "style=\(Self.quote(style));")
        if isActive { line(depth + 1, "fillcolor=\"#fff2cc\";") }
        line(depth + 1, "\(Self.node(state.id)) [shape=point, style=invis, width=0, label=\"\"];")
        if state.kind != .parallel {
            initialMarker(parent: state.id, targets: DiagramLabels.initialTargets(of: state), depth: depth + 1)
        }
        for child in state.children { write(child, depth: depth + 1) }
        line(depth, "}")
    }

    mutating func writeEdges(_ state: StateDefinition) {
        if state.kind == .history, let transition = state.initialTransition {
            for target in transition.targets {
                edge(from: state.id, to: target, label: DiagramLabels.transition(transition), dashed: true)
            }
        }
        for transition in state.transitions {
            let label = DiagramLabels.transition(transition)
            let targets = transition.targets.isEmpty ? [state.id] : transition.targets
            for target in targets { edge(from: state.id, to: target, label: label, dashed: false) }
        }
        // GKStateMachine-style direct moves: a dashed edge per valid next state.
        for target in state.validNextStates ?? [] { edge(from: state.id, to: target, label: "enter", dashed: true) }
        for child in state.children { writeEdges(child) }
    }

    /// Whether `id` is `ancestor` or one of its descendants.
    private func isInside(_ id: String, _ ancestor: String) -> Bool {
        var current: String? = id
        var steps = 0
        while let state = current, steps <= parents.count {
            if state == ancestor { return true }
            current = parents[state]
            steps += 1
        }
        return false
    }

    private mutating func edge(from source: String, to target: String, label: String, dashed: Bool) {
        var attributes: [String] = []
        if !label.isEmpty { attributes.append("label=\(Self.quote(label))") }
        // Edges at a compound state stop at its cluster's border, unless one end is inside the
        // other's cluster (Graphviz cannot clip those).
        if compound.contains(source), !isInside(target, source) {
            attributes.append("ltail=\(Self.cluster(source))")
        }
        if compound.contains(target), !isInside(source, target) {
            attributes.append("lhead=\(Self.cluster(target))")
        }
        if dashed { attributes.append("style=dashed") }
        let suffix = attributes.isEmpty ? "" : " [" + attributes.joined(separator: ", ") + "]"
        line(1, "\(Self.node(source)) -> \(Self.node(target))\(suffix);")
    }
}
