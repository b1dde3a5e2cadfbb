extension MachineDefinition {
    /// The statechart as a Mermaid `stateDiagram-v2`, for Markdown documentation (GitHub renders
    /// it) and for showing where a session is.
    ///
    /// Compound states are `state X { ... }` blocks; a parallel state's regions are separated by
    /// `--`. `[*] --> x` marks the initial state of the machine and of every compound state,
    /// `x --> [*]` a final state. History pseudo-states are states labelled `H` or `H*` and their
    /// id. Transitions are written in the block of their source, labelled with their events and
    /// guard; a targetless transition is a loop on its source.
    ///
    /// A state id that is a plain identifier (letters, digits, `_`, starting with a letter, not a
    /// Mermaid keyword) is used as is; any other id gets an alias (`s1`, `s2`, ... skipping names
    /// already used) declared with `state "<id>" as s1`, so odd ids cannot break the diagram.
    /// Labels escape Mermaid's special characters as entity codes (`#quot;`, `#59;`, ...).
    ///
    /// - Parameter active: ids of states to highlight, with the `active` class
    ///   (`classDef active ...`), for example the configuration at some version of a session.
    public func mermaidDiagram(highlighting active: Set<String> = []) -> String {
        var writer = MermaidWriter(definition: self)
        writer.line(0, "stateDiagram-v2")
        for target in DiagramLabels.initialTargets(of: self) {
            writer.line(1, "[*] --> \(writer.alias(target))")
        }
        for state in states { writer.write(state, depth: 1) }
        let highlighted = writer.orderedIDs.filter(active.contains)
        if !highlighted.isEmpty {
            writer.line(1, "classDef active fill:#ffd966,stroke:#b45f06,stroke-width:2px")
            writer.line(1, "class \(highlighted.map { writer.alias($0) }.joined(separator: ",")) active")
        }
        return writer.output
    }
}

/// Writes the lines of a Mermaid state diagram.
struct MermaidWriter {
    private(set) var output = ""
    private var aliases: [String: String] = [:]
    private var labels: [String: String] = [:]
    /// Every state id in depth-first document order.
    private(set) var orderedIDs: [String] = []

    private static let keywords: Set<String> = [
        "state", "end", "note", "direction", "class", "classdef", "style", "click", "as", "hide", "left", "right",
        "of", "over", "fork", "join", "choice", "statediagram", "statediagram-v2",
    ]

    init(definition: MachineDefinition) {
        var used: Set<String> = []
        var all: [StateDefinition] = []
        func collect(_ states: [StateDefinition]) {
            for state in states {
                all.append(state)
                collect(state.children)
            }
        }
        collect(definition.states)
        orderedIDs = all.map(\.id)
        // Ids that transitions name but no state declares (an invalid definition) get names too.
        var undeclared: [String] = []
        var declared = Set(orderedIDs)
        for id in definition.initial
            + all.flatMap({ state in
                state.initial + (state.initialTransition?.targets ?? []) + state.transitions.flatMap(\.targets)
            }) where declared.insert(id).inserted
        {
            undeclared.append(id)
        }
        for state in all where state.kind != .history && Self.isPlainIdentifier(state.id) {
            aliases[state.id] = state.id
            used.insert(state.id)
        }
        for id in undeclared where Self.isPlainIdentifier(id) {
            aliases[id] = id
            used.insert(id)
        }
        var counter = 0
        func makeAlias() -> String {
            var alias: String
            repeat {
                counter += 1
                alias = "s\(counter)"
            } while used.contains(alias)
            used.insert(alias)
            return alias
        }
        for state in all where aliases[state.id] == nil {
            aliases[state.id] = makeAlias()
            labels[state.id] =
                state.kind == .history
                ? DiagramLabels.historyMarker(state) + " " + state.id
                : state.id
        }
        for id in undeclared where aliases[id] == nil {
            aliases[id] = makeAlias()
        }
    }

    /// Whether Mermaid can use `id` as a state name unchanged: ASCII letters, digits and `_`,
    /// starting with a letter, and not a keyword.
    static func isPlainIdentifier(_ id: String) -> Bool {
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        guard let first = id.unicodeScalars.first, isLetter(first) else { return false }
        let allowed = id.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) || $0 == "_" }
        return allowed && !keywords.contains(id.lowercased())
    }

    /// Escapes text for a Mermaid label with entity codes; line breaks become spaces.
    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "#quot;"
            case "#": result += "#35;"
            case ";": result += "#59;"
            case ":": result += "#58;"
            case "<": result += "#lt;"
            case ">": result += "#gt;"
            case "{": result += "#123;"
            case "}": result += "#125;"
            case "\n", "\r", "\t": result += " "
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The name a state has in the diagram.
    func alias(_ id: String) -> String {
        aliases[id] ?? id
    }

    mutating func line(_ depth: Int, _ text: String) {
        output += String(repeating: "    ", count: depth) + text + "\n"
    }

    mutating func write(_ state: StateDefinition, depth: Int) {
        let name = alias(state.id)
        if let label = labels[state.id] {
            line(depth, "state \"\(Self.escape(label))\" as \(name)")
        } else if state.children.isEmpty {
            line(depth, name)
        }
        if !state.children.isEmpty {
            line(depth, "state \(name) {")
            if state.kind == .parallel {
                for (index, child) in state.children.enumerated() {
                    if index > 0 { line(depth + 1, "--") }
                    write(child, depth: depth + 1)
                }
            } else {
                for target in DiagramLabels.initialTargets(of: state) {
                    line(depth + 1, "[*] --> \(alias(target))")
                }
                for child in state.children { write(child, depth: depth + 1) }
            }
            line(depth, "}")
        }
        if state.kind == .final { line(depth, "\(name) --> [*]") }
        if state.kind == .history, let transition = state.initialTransition {
            for target in transition.targets { edge(depth, name, alias(target), DiagramLabels.transition(transition)) }
        }
        for transition in state.transitions {
            let label = DiagramLabels.transition(transition)
            let targets = transition.targets.isEmpty ? [state.id] : transition.targets
            for target in targets { edge(depth, name, alias(target), label) }
        }
        // GKStateMachine-style direct moves: one edge per valid next state, labelled `enter`.
        for target in state.validNextStates ?? [] { edge(depth, name, alias(target), "enter") }
    }

    private mutating func edge(_ depth: Int, _ source: String, _ target: String, _ label: String) {
        line(depth, "\(source) --> \(target)" + (label.isEmpty ? "" : " : \(Self.escape(label))"))
    }
}
