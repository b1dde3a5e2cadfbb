/// A transition on one or more events, in the machine builder.
public struct On: StateContent {
    /// The transition being declared.
    public var definition: TransitionDefinition

    /// Declares a transition.
    ///
    /// - Parameters:
    ///   - events: The event descriptors (`"*"` for any, `"a"` also matches `"a.b"`).
    ///   - targets: The targets; empty for a targetless transition.
    ///   - condition: An optional guard.
    ///   - type: External (default, SCXML's) or internal. They differ only when every target is
    ///     a descendant of the state declaring the transition: an internal one leaves that state
    ///     active (StateKit's handlers on a parent that go to a child), an external one exits and
    ///     re-enters it.
    ///   - actions: Executable content run between exits and entries.
    ///   - navigation: Overrides the target's navigation declaration.
    public init(
        events: [String], to targets: [String] = [], guard condition: GuardDefinition? = nil,
        type: TransitionDefinition.Kind = .external, actions: [ActionDefinition] = [],
        navigation: NavigationDeclaration? = nil
    ) {
        definition = TransitionDefinition(
            events: events, targets: targets, kind: type, condition: condition, actions: actions,
            navigation: navigation)
    }

    /// Declares a transition on one event to one target (or none).
    public init(
        _ event: String, to target: String? = nil, guard condition: GuardDefinition? = nil,
        type: TransitionDefinition.Kind = .external, actions: [ActionDefinition] = [],
        navigation: NavigationDeclaration? = nil
    ) {
        self.init(
            events: [event], to: target.map { [$0] } ?? [], guard: condition, type: type,
            actions: actions, navigation: navigation)
    }

    /// Declares a transition with typed event and state names (`enum Event: String`,
    /// `enum Screen: String`).
    public init<E: RawRepresentable<String>, S: RawRepresentable<String>>(
        _ event: E, to target: S, guard condition: GuardDefinition? = nil,
        type: TransitionDefinition.Kind = .external, actions: [ActionDefinition] = [],
        navigation: NavigationDeclaration? = nil
    ) {
        self.init(
            event.rawValue, to: target.rawValue, guard: condition, type: type, actions: actions,
            navigation: navigation)
    }

    /// Appends the transition to the state.
    public func apply(to state: inout StateDefinition) {
        state.transitions.append(definition)
    }
}

/// An eventless transition in the machine builder: taken as soon as its guard holds.
public struct Always: StateContent {
    /// The transition being declared.
    public var definition: TransitionDefinition

    /// Declares an eventless transition.
    public init(
        to targets: [String], guard condition: GuardDefinition? = nil,
        type: TransitionDefinition.Kind = .external, actions: [ActionDefinition] = []
    ) {
        definition = TransitionDefinition(targets: targets, kind: type, condition: condition, actions: actions)
    }

    /// Appends the transition to the state.
    public func apply(to state: inout StateDefinition) {
        state.transitions.append(definition)
    }
}
