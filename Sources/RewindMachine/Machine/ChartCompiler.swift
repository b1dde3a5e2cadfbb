/// Turns a ``MachineDefinition`` plus ``Bindings`` into a ``CompiledChart``, collecting every
/// validation error (thrown together) and warning (returned).
struct ChartCompiler {
    let definition: MachineDefinition
    let bindings: Bindings

    private var errors: [ValidationError] = []
    /// Warnings found while compiling executable content (undeliverable sends), in document order.
    private var actionWarnings: [ValidationWarning] = []
    private var definitions: [StateDefinition?] = [nil]  // index 0: the root
    private var ids: [String] = [""]
    private var index: [String: Int] = [:]
    private var parent: [Int] = [-1]
    private var subtreeEnd: [Int] = [0]

    init(definition: MachineDefinition, bindings: Bindings) {
        self.definition = definition
        self.bindings = bindings
    }

    mutating func compile() throws -> (CompiledChart, [ValidationWarning]) {
        for state in definition.states { flatten(state, parent: 0) }
        subtreeEnd[0] = ids.count
        let count = ids.count

        var kind: [CompiledChart.NodeKind] = Array(repeating: .root, count: count)
        var children: [[Int]] = Array(repeating: [], count: count)
        var historyChildren: [[Int]] = Array(repeating: [], count: count)
        for state in 1..<count {
            guard let definition = definitions[state] else { continue }
            if definition.kind == .history {
                historyChildren[parent[state]].append(state)
            } else {
                children[parent[state]].append(state)
            }
        }
        for state in 1..<count {
            guard let definition = definitions[state] else { continue }
            switch definition.kind {
            case .state: kind[state] = children[state].isEmpty ? .atomic : .compound
            case .parallel: kind[state] = .parallel
            case .final: kind[state] = .final
            case .history: kind[state] = .history(deep: definition.history == .deep)
            }
        }

        var transitions: [CompiledChart.Transition] = []
        let historyFlags = kind.map { if case .history = $0 { true } else { false } }
        var stateTransitions: [[Int]] = Array(repeating: [], count: count)
        var initialTargets: [[Int]] = Array(repeating: [], count: count)
        var initialActions: [[CompiledChart.Action]] = Array(repeating: [], count: count)
        var onEntry: [[CompiledChart.Action]] = Array(repeating: [], count: count)
        var onExit: [[CompiledChart.Action]] = Array(repeating: [], count: count)
        var navigation: [NavigationDeclaration?] = Array(repeating: nil, count: count)
        var validNextStates: [[Int]?] = Array(repeating: nil, count: count)
        var ignoredEvents: [[String]] = Array(repeating: [], count: count)

        // The root's initial targets.
        if definition.initial.isEmpty {
            if let first = children[0].first { initialTargets[0] = [first] }
        } else {
            initialTargets[0] = resolve(definition.initial, in: "", transition: nil)
        }

        for state in 1..<count {
            guard let definition = definitions[state] else { continue }
            let id = ids[state]
            switch kind[state] {
            case .final:
                if !definition.children.isEmpty {
                    errors.append(ValidationError(state: id, problem: .invalidChildren))
                }
                if !definition.transitions.isEmpty {
                    errors.append(ValidationError(state: id, problem: .transitionFromFinalState))
                }
            case .history:
                if !definition.children.isEmpty {
                    errors.append(ValidationError(state: id, problem: .invalidChildren))
                }
                let owner = parent[state]
                if owner == 0 || !(kind[owner] == .compound || kind[owner] == .parallel) {
                    errors.append(ValidationError(state: id, problem: .historyOutsideCompoundState))
                }
                if let defaultTransition = definition.initialTransition {
                    initialTargets[state] = resolve(defaultTransition.targets, in: id, transition: nil)
                    initialActions[state] = compile(defaultTransition.actions, in: id)
                } else if !definition.initial.isEmpty {
                    initialTargets[state] = resolve(definition.initial, in: id, transition: nil)
                }
                for target in initialTargets[state] where !isDescendant(target, of: owner) {
                    errors.append(
                        ValidationError(
                            state: id, problem: .historyDefaultOutsideParent(ids[target])))
                }
            case .compound:
                let requested: [String]
                if !definition.initial.isEmpty {
                    requested = definition.initial
                } else if let initial = definition.initialTransition {
                    requested = initial.targets
                    initialActions[state] = compile(initial.actions, in: id)
                } else {
                    requested = []
                }
                if requested.isEmpty {
                    if let first = children[state].first {
                        initialTargets[state] = [first]
                    } else {
                        errors.append(ValidationError(state: id, problem: .unresolvableInitial([])))
                    }
                } else {
                    let targets = resolve(requested, in: id, transition: nil)
                    if targets.count == requested.count,
                        targets.allSatisfy({ isDescendant($0, of: state) })
                    {
                        initialTargets[state] = targets
                    } else {
                        errors.append(ValidationError(state: id, problem: .unresolvableInitial(requested)))
                    }
                }
            case .atomic, .parallel, .root:
                break
            }

            for (position, transition) in definition.transitions.enumerated() {
                let targets = resolve(transition.targets, in: id, transition: position)
                let events = transition.events.map(Self.normalise)
                stateTransitions[state].append(transitions.count)
                transitions.append(
                    CompiledChart.Transition(
                        source: state, index: position, events: events, targets: targets,
                        isInternal: transition.kind == .internal,
                        condition: transition.condition.map { compile($0, in: id, transition: position) },
                        actions: compile(transition.actions, in: id), navigation: transition.navigation,
                        ids: ids, isHistory: { historyFlags[$0] }))
            }
            onEntry[state] = compile(definition.onEntry, in: id)
            onExit[state] = compile(definition.onExit, in: id)
            navigation[state] = definition.navigation
            validNextStates[state] = definition.validNextStates.map {
                resolve($0, in: id, transition: nil)
            }
            ignoredEvents[state] = definition.ignoredEvents
        }

        // History states without a default take their parent's initial entry.
        for state in 1..<count {
            if case .history = kind[state], initialTargets[state].isEmpty {
                let owner = parent[state]
                initialTargets[state] = kind[owner] == .parallel ? children[owner] : initialTargets[owner]
            }
        }
        // Entering a history without memory enters its default; one that leads back to a history
        // already on the way (itself, or a sibling defaulting to it) would recurse without end.
        func historyTargets(of state: Int) -> [Int] {
            initialTargets[state].filter { if case .history = kind[$0] { true } else { false } }
        }
        for state in 1..<count {
            guard case .history = kind[state] else { continue }
            var reached: Set<Int> = []
            var next = historyTargets(of: state)
            while let target = next.popLast() {
                if reached.insert(target).inserted { next += historyTargets(of: target) }
            }
            if reached.contains(state) {
                errors.append(ValidationError(state: ids[state], problem: .historyDefaultLoop))
            }
        }

        if !errors.isEmpty { throw MachineError.invalidDefinition(errors) }

        let chart = CompiledChart(
            ids: ids, index: index, parent: parent, children: children,
            historyChildren: historyChildren, kind: kind, subtreeEnd: subtreeEnd,
            initialTargets: initialTargets, initialActions: initialActions,
            transitions: transitions, stateTransitions: stateTransitions, onEntry: onEntry,
            onExit: onExit, navigation: navigation, validNextStates: validNextStates,
            ignoredEvents: ignoredEvents)
        return (chart, Self.warnings(for: chart) + actionWarnings)
    }

    /// `"a.*"` and `"a."` mean the same as `"a"`.
    static func normalise(_ descriptor: String) -> String {
        if descriptor.hasSuffix(".*") { return String(descriptor.dropLast(2)) }
        if descriptor.hasSuffix("."), descriptor.count > 1 { return String(descriptor.dropLast()) }
        return descriptor
    }

    private func isDescendant(_ state: Int, of ancestor: Int) -> Bool {
        state > ancestor && state < subtreeEnd[ancestor]
    }

    private mutating func flatten(_ state: StateDefinition, parent owner: Int) {
        let position = ids.count
        if state.id.isEmpty {
            errors.append(ValidationError(state: state.id, problem: .emptyID))
        } else if index[state.id] != nil {
            errors.append(ValidationError(state: state.id, problem: .duplicateID))
        } else {
            index[state.id] = position
        }
        ids.append(state.id)
        definitions.append(state)
        parent.append(owner)
        subtreeEnd.append(position + 1)
        for child in state.children { flatten(child, parent: position) }
        subtreeEnd[position] = ids.count
    }

    private mutating func resolve(_ targets: [String], in state: String, transition: Int?) -> [Int] {
        var resolved: [Int] = []
        for target in targets {
            if let position = index[target] {
                resolved.append(position)
            } else {
                errors.append(ValidationError(state: state, transition: transition, problem: .unknownTarget(target)))
            }
        }
        return resolved
    }

    private mutating func compile(_ condition: GuardDefinition, in state: String, transition: Int?)
        -> CompiledChart.Guard
    {
        switch condition {
        case .named(let name):
            if let predicate = bindings.guards[name] { return .named(name, predicate) }
            errors.append(ValidationError(state: state, transition: transition, problem: .unboundGuard(name)))
            return .all([])
        case .inState(let id):
            if let position = index[id] { return .inState(position) }
            errors.append(ValidationError(state: state, transition: transition, problem: .unknownStateInCondition(id)))
            return .all([])
        case .not(let inner):
            return .not(compile(inner, in: state, transition: transition))
        case .all(let inner):
            return .all(inner.map { compile($0, in: state, transition: transition) })
        case .any(let inner):
            return .any(inner.map { compile($0, in: state, transition: transition) })
        }
    }

    private mutating func compile(_ actions: [ActionDefinition], in state: String) -> [CompiledChart.Action] {
        actions.compactMap { action in
            switch action {
            case .raise(let event):
                return .raise(Event(event))
            case .send(let event, let delay, let id):
                return .send(Event(event), delay: .milliseconds(delay.wholeMilliseconds), id: id)
            case .cancel(let id):
                return .cancel(id)
            case .log(let label, let message):
                return .log([label, message].compactMap { $0 }.joined(separator: ": "))
            case .custom(let name):
                if let code = bindings.actions[name] { return .custom(name, code) }
                errors.append(ValidationError(state: state, problem: .unboundAction(name)))
                return nil
            case .conditional(let branches):
                return .conditional(
                    branches.map { branch in
                        (
                            branch.condition.map { compile($0, in: state, transition: nil) },
                            compile(branch.actions, in: state)
                        )
                    })
            case .undeliverableSend(let event, let target, let type, _, _):
                let error = ActionDefinition.undeliverableSendError(target: target, type: type)
                actionWarnings.append(
                    ValidationWarning(
                        state: state,
                        problem: .undeliverableSend(event: event, target: target, type: type, raises: error)))
                return .raise(Event(error))
            }
        }
    }
}
