/// Checks the state ids an imported SCXML document refers to — transition targets, `initial`
/// attributes, the states of `In('id')` conditions — and reports the first wrong one with the
/// line and column of the element that names it, which the definition alone no longer knows.
///
/// It walks the element tree beside the ``MachineDefinition`` made from it: the state elements
/// of an element are, in order, the children of its ``StateDefinition`` (generated ids included).
struct ReferenceCheck {
    let definition: MachineDefinition
    private let ids: Set<String>

    init(definition: MachineDefinition) {
        self.definition = definition
        ids = Self.ids(of: definition.states)
    }

    private static let stateElements: Set<String> = ["state", "parallel", "final", "history"]

    /// Throws ``SCXMLImportError`` for the first reference, in document order, to a state that does
    /// not exist, or for an `initial` that names a state outside its element.
    func check(root: SCXMLElement) throws(SCXMLImportError) {
        for id in definition.initial where !ids.contains(id) {
            throw SCXMLImportError(.invalidInitial(id, state: nil), line: root.line, column: root.column)
        }
        try walk(root, children: definition.states)
    }

    private func isSCXML(_ element: SCXMLElement) -> Bool {
        element.name.namespace == SCXMLNamespace.scxml || element.name.namespace == nil
    }

    private func walk(_ element: SCXMLElement, children: [StateDefinition]) throws(SCXMLImportError) {
        var next = 0
        for child in element.children where isSCXML(child) {
            let name = child.name.local
            if Self.stateElements.contains(name), next < children.count {
                let state = children[next]
                next += 1
                if name == "state", let initial = child.attribute("initial") {
                    let inside = Self.descendants(of: state)
                    for id in SCXMLValueSyntax.list(initial) where !inside.contains(id) {
                        throw SCXMLImportError(
                            .invalidInitial(id, state: state.id), line: child.line, column: child.column)
                    }
                }
                try walk(child, children: state.children)
                continue
            }
            if name == "transition", let targets = child.attribute("target") {
                for id in SCXMLValueSyntax.list(targets) where !ids.contains(id) {
                    throw SCXMLImportError(.unknownTarget(id), line: child.line, column: child.column)
                }
            }
            if name == "transition" || name == "if" || name == "elseif" {
                try checkCondition(of: child)
            }
            try walk(child, children: [])
        }
    }

    private func checkCondition(of element: SCXMLElement) throws(SCXMLImportError) {
        let condition =
            element.attribute("cond").flatMap(GuardExpression.parseCondition)
            ?? element.rewindAttribute("guard").flatMap(GuardExpression.parseExpression)
        guard let condition else { return }
        if let unknown = firstUnknownState(in: condition) {
            throw SCXMLImportError(.unknownStateInCondition(unknown), line: element.line, column: element.column)
        }
    }

    private func firstUnknownState(in condition: GuardDefinition) -> String? {
        switch condition {
        case .named: return nil
        case .inState(let id): return ids.contains(id) ? nil : id
        case .not(let inner): return firstUnknownState(in: inner)
        case .all(let inner), .any(let inner):
            for guardDefinition in inner {
                if let unknown = firstUnknownState(in: guardDefinition) { return unknown }
            }
            return nil
        }
    }

    private static func descendants(of state: StateDefinition) -> Set<String> {
        ids(of: state.children)
    }

    /// The ids of `states` and of all their descendants.
    private static func ids(of states: [StateDefinition]) -> Set<String> {
        var result: Set<String> = []
        func collect(_ states: [StateDefinition]) {
            for state in states {
                result.insert(state.id)
                collect(state.children)
            }
        }
        collect(states)
        return result
    }
}
