/// The text the diagram exports (DOT and Mermaid) show, shared so both say the same thing.
package enum DiagramLabels {
    /// A transition's label: its events (`*` for any, nothing when eventless), then its guard in
    /// brackets, then `(internal)` for internal transitions: `pay confirm [In('ready')]`.
    package static func transition(_ transition: TransitionDefinition) -> String {
        var parts: [String] = []
        if !transition.events.isEmpty { parts.append(transition.events.joined(separator: " ")) }
        if let condition = transition.condition {
            parts.append(
                "[" + (GuardExpression.condition(for: condition) ?? GuardExpression.expression(for: condition)) + "]")
        }
        if transition.kind == .internal { parts.append("(internal)") }
        return parts.joined(separator: " ")
    }

    /// A history pseudo-state's marker: `H` for shallow, `H*` for deep.
    package static func historyMarker(_ state: StateDefinition) -> String {
        state.history == .deep ? "H*" : "H"
    }

    /// The targets a compound state enters by default: its `initial` attribute, else its initial
    /// transition's targets, else its first child that is not a history pseudo-state.
    package static func initialTargets(of state: StateDefinition) -> [String] {
        defaultTargets(initial: state.initial, transition: state.initialTransition, children: state.children)
    }

    /// The targets the machine enters on start.
    package static func initialTargets(of definition: MachineDefinition) -> [String] {
        defaultTargets(initial: definition.initial, transition: nil, children: definition.states)
    }

    private static func defaultTargets(
        initial: [String],
        transition: TransitionDefinition?,
        children: [StateDefinition]
    ) -> [String] {
        if !initial.isEmpty { return initial }
        if let transition, !transition.targets.isEmpty { return transition.targets }
        if let first = children.first(where: { $0.kind != .history }) { return [first.id] }
        return []
    }
}
