/// A state in the machine builder: atomic without children, compound with some.
public struct StateNode: StateContent {
    /// The state being declared.
    public var definition: StateDefinition

    /// Declares a state.
    ///
    /// - Parameters:
    ///   - id: The state's id (its name in the log).
    ///   - initial: The initial child of a compound state; the first child when omitted.
    ///   - navigation: What entering the state does to the navigation stack.
    ///   - validNextStates: GKStateMachine's valid next states, for `enter(_:data:in:now:)`.
    ///   - ignoring: Events this state ignores instead of rejecting.
    ///   - content: Child states, transitions, entry and exit actions.
    public init(
        _ id: String, initial: String? = nil, navigation: NavigationDeclaration? = nil,
        validNextStates: [String]? = nil, ignoring: [String] = [],
        @StateContentBuilder content: () -> [any StateContent] = { [] }
    ) {
        var definition = StateDefinition(
            id: id, initial: initial.map { [$0] } ?? [], navigation: navigation,
            validNextStates: validNextStates, ignoredEvents: ignoring)
        for part in content() { part.apply(to: &definition) }
        self.definition = definition
    }

    /// Declares a state named by a typed identifier (`enum Screen: String`).
    public init<ID: RawRepresentable<String>>(
        _ id: ID, initial: ID? = nil, navigation: NavigationDeclaration? = nil,
        validNextStates: [ID]? = nil, ignoring: [String] = [],
        @StateContentBuilder content: () -> [any StateContent] = { [] }
    ) {
        self.init(
            id.rawValue, initial: initial?.rawValue, navigation: navigation,
            validNextStates: validNextStates?.map(\.rawValue), ignoring: ignoring, content: content)
    }

    /// Appends the state as a child.
    public func apply(to state: inout StateDefinition) {
        state.children.append(definition)
    }
}

/// A parallel state in the machine builder: all its children (regions) are active together.
public struct ParallelNode: StateContent {
    /// The state being declared.
    public var definition: StateDefinition

    /// Declares a parallel state whose children are its regions.
    public init(
        _ id: String, navigation: NavigationDeclaration? = nil,
        @StateContentBuilder content: () -> [any StateContent]
    ) {
        var definition = StateDefinition(id: id, kind: .parallel, navigation: navigation)
        for part in content() { part.apply(to: &definition) }
        self.definition = definition
    }

    /// Appends the state as a child.
    public func apply(to state: inout StateDefinition) {
        state.children.append(definition)
    }
}

/// A final state in the machine builder: entering it raises `done.state.<parent>`.
public struct FinalNode: StateContent {
    /// The state being declared.
    public var definition: StateDefinition

    /// Declares a final state, with optional entry and exit actions.
    public init(
        _ id: String, navigation: NavigationDeclaration? = nil,
        @StateContentBuilder content: () -> [any StateContent] = { [] }
    ) {
        var definition = StateDefinition(id: id, kind: .final, navigation: navigation)
        for part in content() { part.apply(to: &definition) }
        self.definition = definition
    }

    /// Appends the state as a child.
    public func apply(to state: inout StateDefinition) {
        state.children.append(definition)
    }
}

/// A history pseudo-state in the machine builder.
public struct HistoryNode: StateContent {
    /// The state being declared.
    public var definition: StateDefinition

    /// Declares a shallow or deep history state; `defaultTargets` are entered when it has no memory
    /// yet (the parent's initial child when empty).
    public init(_ id: String, _ type: HistoryType = .shallow, default defaultTargets: [String] = []) {
        definition = StateDefinition(
            id: id, kind: .history, history: type,
            initialTransition: defaultTargets.isEmpty ? nil : TransitionDefinition(targets: defaultTargets))
    }

    /// Appends the state as a child.
    public func apply(to state: inout StateDefinition) {
        state.children.append(definition)
    }
}

/// Entry actions in the machine builder (SCXML `<onentry>`).
public struct OnEntry: StateContent {
    /// The actions, in order.
    public var actions: [ActionDefinition]

    /// Declares entry actions.
    public init(_ actions: ActionDefinition...) {
        self.actions = actions
    }

    /// Appends the actions to the state's entry actions.
    public func apply(to state: inout StateDefinition) {
        state.onEntry.append(contentsOf: actions)
    }
}

/// Exit actions in the machine builder (SCXML `<onexit>`).
public struct OnExit: StateContent {
    /// The actions, in order.
    public var actions: [ActionDefinition]

    /// Declares exit actions.
    public init(_ actions: ActionDefinition...) {
        self.actions = actions
    }

    /// Appends the actions to the state's exit actions.
    public func apply(to state: inout StateDefinition) {
        state.onExit.append(contentsOf: actions)
    }
}
