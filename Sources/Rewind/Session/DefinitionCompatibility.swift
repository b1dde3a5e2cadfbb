import RewindMachine

/// One thing a session's recorded state names that a machine definition does not have in the same
/// place: why the session cannot resume under that definition as it stands (see
/// ``EngineError/incompatibleDefinition(session:machine:recorded:registered:problems:)``).
public struct DefinitionIncompatibility: Sendable, Hashable, CustomStringConvertible {
    /// Where the session's state names the state.
    public enum Role: Sendable, Hashable {
        /// It is in the active configuration.
        case active
        /// It is a history pseudo-state that holds memory.
        case history
        /// The memory of the history pseudo-state `history` restores it.
        case remembered(by: String)
        /// It carries state data.
        case data
        /// It is a screen on the navigation stack.
        case screen
    }

    /// What is wrong with it in the new definition.
    public enum Problem: Sendable, Hashable {
        /// The definition has no state (or, for a screen, no state or declared screen) with this
        /// id. `formerPath` is where it was: its ancestors' ids, outermost first (`[]` at the top
        /// level; `nil` when the earlier definition is not known).
        case missing(formerPath: [String]?)
        /// The state is under other ancestors (outermost first): `from` is where the recorded
        /// state has it (`nil` when not known), `to` where the definition has it.
        case moved(from: [String]?, to: [String])
        /// The state is of another kind (`atomic`, `compound`, `parallel`, `final`,
        /// `history(shallow)`, `history(deep)`); `from` is `nil` when not known.
        case changedKind(from: String?, to: String)
        /// The state is a region of the active parallel state `parallel`, so it would have to be
        /// active too, and the recorded configuration has none of it (a region was added).
        case notEntered(parallel: String)
        /// The state is an active compound state none of whose children is active.
        case noActiveChild
    }

    /// The state's id (after the declared migrations' renames).
    public var state: String
    /// Where the session's state names it.
    public var role: Role
    /// What is wrong with it.
    public var problem: Problem

    /// Creates an incompatibility.
    public init(state: String, role: Role, problem: Problem) {
        self.state = state
        self.role = role
        self.problem = problem
    }

    /// E.g. `active state 'cart' (was at shop) is missing`.
    public var description: String {
        let subject: String
        switch role {
        case .active: subject = "active state '\(state)'"
        case .history: subject = "history state '\(state)' (it holds memory)"
        case .remembered(let history): subject = "state '\(state)' remembered by history '\(history)'"
        case .data: subject = "state '\(state)' (it carries data)"
        case .screen: subject = "screen '\(state)' on the navigation stack"
        }
        func place(_ path: [String]?) -> String {
            guard let path else { return "an unknown place" }
            return path.isEmpty ? "the top level" : path.joined(separator: " › ")
        }
        switch problem {
        case .missing(let formerPath):
            return formerPath.map { "\(subject) (was at \(place($0))) is missing" } ?? "\(subject) is missing"
        case .moved(let from, let to):
            return "\(subject) moved from \(place(from)) to \(place(to))"
        case .changedKind(let from, let to):
            return "\(subject) changed kind from \(from ?? "an unknown kind") to \(to)"
        case .notEntered(let parallel):
            return "\(subject) is a region of the active parallel state '\(parallel)' but is not active"
        case .noActiveChild:
            return "\(subject) is compound but none of its children is active"
        }
    }
}

/// The shape of a machine definition that a session's state depends on: each state's ancestors,
/// kind and document order, and the screens its navigation declarations name.
struct DefinitionOutline: Sendable {
    struct Node: Sendable {
        /// The ancestors' ids, outermost first.
        var path: [String]
        /// `atomic`, `compound`, `parallel`, `final`, `history(shallow)` or `history(deep)`.
        var kind: String
        /// The child states that are not history pseudo-states, in document order.
        var children: [String]
        /// The position in document order.
        var order: Int
    }

    private(set) var nodes: [String: Node] = [:]
    /// Screen names declared by navigation declarations (`push(screen:)`, …).
    private(set) var screens: Set<String> = []

    init(_ definition: MachineDefinition) {
        var order = 0
        func visit(_ state: StateDefinition, path: [String]) {
            let kind: String
            switch state.kind {
            case .state: kind = state.children.contains { $0.kind != .history } ? "compound" : "atomic"
            case .parallel: kind = "parallel"
            case .final: kind = "final"
            case .history: kind = "history(\((state.history ?? .shallow).rawValue))"
            }
            nodes[state.id] = Node(
                path: path, kind: kind, children: state.children.filter { $0.kind != .history }.map(\.id),
                order: order)
            order += 1
            note(state.navigation)
            for transition in state.transitions { note(transition.navigation) }
            for child in state.children { visit(child, path: path + [state.id]) }
        }
        func note(_ declaration: NavigationDeclaration?) {
            switch declaration {
            case .push(let screen?), .replace(let screen?), .setRoot(let screen?), .popTo(let screen):
                screens.insert(screen)
            default: break
            }
        }
        for state in definition.states { visit(state, path: []) }
    }

    /// `ids` (known ones) in document order, without repeats; unknown ones after them, as given.
    func inDocumentOrder(_ ids: [String]) -> [String] {
        var seen: Set<String> = []
        let unique = ids.filter { seen.insert($0).inserted }
        let known = unique.compactMap { id in nodes[id].map { (order: $0.order, id: id) } }
            .sorted { $0.order < $1.order }.map(\.id)
        return known + unique.filter { nodes[$0] == nil }
    }

    /// What in `snapshot` this definition does not have in the same place.
    ///
    /// - Parameters:
    ///   - former: the definition the state was recorded under, with `formerID` giving the id
    ///     a state of `snapshot` had there (renames undone) and `renamed` the id a former id has
    ///     now. When `former` is `nil` (unknown, or a migration's closure rewrote the state) only
    ///     whether the state is a legal one of this definition is checked.
    func incompatibilities(
        of snapshot: SessionSnapshot, former: DefinitionOutline?,
        formerID: (String) -> String, renamed: (String) -> String
    ) -> [DefinitionIncompatibility] {
        var problems: [DefinitionIncompatibility] = []
        let state = snapshot.state
        let active = Set(state.configuration)
        func formerPath(_ id: String) -> [String]? {
            former?.nodes[formerID(id)].map { $0.path.map(renamed) }
        }
        /// Checks that `id` exists and is where the former definition had it; returns its node.
        func place(_ id: String, _ role: DefinitionIncompatibility.Role, kindMatters: Bool) -> Node? {
            guard let node = nodes[id] else {
                problems.append(.init(state: id, role: role, problem: .missing(formerPath: formerPath(id))))
                return nil
            }
            if let was = former?.nodes[formerID(id)] {
                let wasPath = was.path.map(renamed)
                if wasPath != node.path {
                    problems.append(.init(state: id, role: role, problem: .moved(from: wasPath, to: node.path)))
                    return nil
                }
                if kindMatters, was.kind != node.kind {
                    problems.append(.init(state: id, role: role, problem: .changedKind(from: was.kind, to: node.kind)))
                    return nil
                }
            }
            return node
        }

        // The configuration: every state where it was, its parent active, its regions active.
        for id in state.configuration {
            guard let node = place(id, .active, kindMatters: true) else { continue }
            if let parent = node.path.last, !active.contains(parent) {
                problems.append(.init(state: id, role: .active, problem: .moved(from: formerPath(id), to: node.path)))
                continue
            }
            switch node.kind {
            case "parallel":
                for region in node.children where !active.contains(region) {
                    problems.append(.init(state: region, role: .active, problem: .notEntered(parallel: id)))
                }
            case "compound":
                if !node.children.contains(where: active.contains) {
                    problems.append(.init(state: id, role: .active, problem: .noActiveChild))
                }
            default:
                break
            }
        }
        // History memory: a history state of the same kind, restoring states under its parent.
        for history in state.history.keys.sorted() {
            guard let node = place(history, .history, kindMatters: true) else { continue }
            guard node.kind.hasPrefix("history") else {
                problems.append(.init(state: history, role: .history, problem: .changedKind(from: nil, to: node.kind)))
                continue
            }
            for remembered in state.history[history] ?? [] {
                guard let target = place(remembered, .remembered(by: history), kindMatters: false) else { continue }
                if let parent = node.path.last, !target.path.contains(parent) {
                    problems.append(
                        .init(
                            state: remembered, role: .remembered(by: history),
                            problem: .moved(from: formerPath(remembered), to: target.path)))
                }
            }
        }
        // State data of states not already checked as active ones.
        for id in state.data.keys.sorted() where !active.contains(id) {
            _ = place(id, .data, kindMatters: false)
        }
        // Screens: a state or a screen the definition declares.
        var seen: Set<String> = []
        for screen in snapshot.navigation.screens where seen.insert(screen).inserted {
            if nodes[screen] == nil, !screens.contains(screen) {
                let wasState = former?.nodes[formerID(screen)] != nil
                problems.append(
                    .init(
                        state: screen, role: .screen, problem: .missing(formerPath: wasState ? formerPath(screen) : nil)
                    ))
            }
        }
        return problems
    }
}
