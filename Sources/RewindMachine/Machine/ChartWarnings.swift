extension ChartCompiler {
    /// Legal but suspicious parts of a chart: unreachable states and transitions that an earlier
    /// transition of the same state always pre-empts.
    static func warnings(for chart: CompiledChart) -> [ValidationWarning] {
        var warnings: [ValidationWarning] = []

        // Reachability: enter the initial configuration, then follow every target.
        var reachable = Array(repeating: false, count: chart.count)
        var pending: [Int] = [0]
        func enter(_ state: Int) {
            var current = state
            while current >= 0, !reachable[current] {
                reachable[current] = true
                pending.append(current)
                current = chart.parent[current]
            }
        }
        while let state = pending.popLast() {
            switch chart.kind[state] {
            case .root, .compound:
                chart.initialTargets[state].forEach(enter)
            case .parallel:
                chart.children[state].forEach(enter)
            case .history:
                chart.initialTargets[state].forEach(enter)
                let owner = chart.parent[state]
                for descendant in (owner + 1)..<chart.subtreeEnd[owner] { enter(descendant) }
            case .atomic, .final:
                break
            }
            for transition in chart.stateTransitions[state] {
                chart.transitions[transition].targets.forEach(enter)
            }
            chart.validNextStates[state]?.forEach(enter)
        }
        for state in 1..<chart.count where !reachable[state] {
            if case .history = chart.kind[state] { continue }
            warnings.append(ValidationWarning(state: chart.ids[state], problem: .unreachableState))
        }

        // Shadowed transitions.
        for state in 1..<chart.count where reachable[state] {
            let transitions = chart.stateTransitions[state].map { chart.transitions[$0] }
            let leavesAtOnce = transitions.contains { $0.events.isEmpty && $0.condition == nil }
            var eventlessTaken = false
            var covered: [String] = []
            for transition in transitions {
                let dead: Bool
                if transition.events.isEmpty {
                    dead = eventlessTaken
                    if transition.condition == nil { eventlessTaken = true }
                } else {
                    dead =
                        leavesAtOnce
                        || transition.events.allSatisfy { descriptor in
                            covered.contains { Event.name(descriptor, matches: $0) }
                        }
                    if transition.condition == nil { covered.append(contentsOf: transition.events) }
                }
                if dead {
                    warnings.append(
                        ValidationWarning(
                            state: chart.ids[state], transition: transition.index, problem: .transitionNeverTaken))
                }
            }
        }
        return warnings
    }
}
