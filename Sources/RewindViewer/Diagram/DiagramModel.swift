import Rewind

/// A definition flattened for drawing: its states as an indexed tree under a root (index 0), the
/// transitions drawn and one edge per transition target.
struct DiagramModel: Sendable {
    /// What a node is drawn as.
    enum Kind: Sendable, Hashable {
        /// The machine itself: no box, its top-level states are its children.
        case root
        case atomic
        case compound
        case parallel
        case final
        case history(deep: Bool)

        /// Whether the node lays out children in a layered graph of its own.
        var isLayered: Bool { self == .root || self == .compound }

        /// The CSS class naming the kind (`rw-atomic`, ...).
        var cssClass: String {
            switch self {
            case .root: return "rw-root"
            case .atomic: return "rw-atomic"
            case .compound: return "rw-compound"
            case .parallel: return "rw-parallel"
            case .final: return "rw-final"
            case .history: return "rw-history"
            }
        }
    }

    /// One state (or the root).
    struct Node: Sendable {
        var id: String
        var kind: Kind
        var parent: Int?
        var children: [Int] = []
        /// The children the node enters by default (its initial marker points at the ones that
        /// contain them); empty for a parallel state and atomic ones.
        var initialTargets: [Int] = []
    }

    /// One drawn line of a transition: from its source to one of its targets (itself for a
    /// targetless transition: a loop).
    struct Edge: Sendable {
        var transition: Int
        var source: Int
        var target: Int
        /// Whether this line carries the transition's label (the first target's line does).
        var labelled: Bool
        var isLoop: Bool { source == target }
    }

    var name: String
    var nodes: [Node]
    var transitions: [DiagramTransition]
    var edges: [Edge]
    /// Node index by state id (the first state of an id, should a definition repeat one).
    var index: [String: Int]

    init(_ definition: MachineDefinition) {
        name = definition.name
        nodes = [Node(id: definition.name, kind: .root, parent: nil)]
        transitions = []
        edges = []
        index = [:]
        var declared: [(Int, StateDefinition)] = []
        func add(_ states: [StateDefinition], parent: Int) {
            for state in states {
                let number = nodes.count
                nodes.append(Node(id: state.id, kind: Self.kind(of: state), parent: parent))
                nodes[parent].children.append(number)
                if index[state.id] == nil { index[state.id] = number }
                declared.append((number, state))
                add(state.children, parent: number)
            }
        }
        add(definition.states, parent: 0)
        nodes[0].initialTargets = DiagramLabels.initialTargets(of: definition).compactMap { index[$0] }
        for (number, state) in declared where nodes[number].kind == .compound {
            nodes[number].initialTargets = DiagramLabels.initialTargets(of: state).compactMap { index[$0] }
        }
        for (number, state) in declared {
            if state.kind == .history, let transition = state.initialTransition {
                append(transition, of: state, node: number, kind: .historyDefault)
            }
            for transition in state.transitions {
                append(transition, of: state, node: number, kind: transition.events.isEmpty ? .eventless : .event)
            }
            for target in state.validNextStates ?? [] {
                let move = TransitionDefinition(events: [Machine.enterEventName], targets: [target])
                append(move, of: state, node: number, kind: .directMove)
            }
        }
    }

    private static func kind(of state: StateDefinition) -> Kind {
        switch state.kind {
        case .history: return .history(deep: state.history == .deep)
        case .final: return .final
        case .parallel: return state.children.isEmpty ? .atomic : .parallel
        case .state: return state.children.isEmpty ? .atomic : .compound
        }
    }

    private mutating func append(
        _ transition: TransitionDefinition, of state: StateDefinition, node: Int, kind: DiagramTransition.Kind
    ) {
        let number = transitions.count
        let label = kind == .directMove ? Machine.enterEventName : DiagramLabels.transition(transition)
        transitions.append(
            DiagramTransition(
                index: number, source: state.id,
                event: transition.events.isEmpty ? nil : transition.events.joined(separator: " "),
                events: transition.events, targets: transition.targets, label: label, kind: kind))
        // Targets no state declares (an invalid definition) have nothing to point at.
        let targets = transition.targets.isEmpty ? [node] : transition.targets.compactMap { index[$0] }
        for (position, target) in targets.enumerated() {
            edges.append(Edge(transition: number, source: node, target: target, labelled: position == 0))
        }
    }

    /// The nodes from `node` up to the root, `node` first.
    func ancestry(of node: Int) -> [Int] {
        var chain = [node]
        var current = nodes[node].parent
        while let next = current {
            chain.append(next)
            current = nodes[next].parent
        }
        return chain
    }

    /// The lowest node that is `a` or an ancestor of it and `b` or an ancestor of it.
    func lowestCommonAncestor(_ a: Int, _ b: Int) -> Int {
        let above = Set(ancestry(of: b))
        return ancestry(of: a).first(where: above.contains) ?? 0
    }

    /// The child of `ancestor` on the way down to `node` (`node` itself when it is a child).
    func child(of ancestor: Int, containing node: Int) -> Int {
        var current = node
        while let parent = nodes[current].parent, parent != ancestor { current = parent }
        return current
    }

    /// Whether `node` is `ancestor` or below it.
    func isWithin(_ node: Int, _ ancestor: Int) -> Bool {
        ancestry(of: node).contains(ancestor)
    }
}
