import RewindMachine

extension MachineDefinition {
    /// Every event name the chart's transitions and ignored lists mention, once each, in order:
    /// prefix descriptors without their `.*`, no `*` — the vocabulary random walks draw from.
    public var eventNames: [String] {
        var names: [String] = []
        func collect(_ state: StateDefinition) {
            for transition in state.transitions { names.append(contentsOf: transition.events) }
            names.append(contentsOf: state.ignoredEvents)
            state.children.forEach(collect)
        }
        states.forEach(collect)
        var seen: Set<String> = []
        return
            names
            .filter { !$0.isEmpty && $0 != "*" }
            .map { $0.hasSuffix(".*") ? String($0.dropLast(2)) : $0 }
            .filter { seen.insert($0).inserted }
    }
}
