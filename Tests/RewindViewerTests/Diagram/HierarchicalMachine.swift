import Rewind

/// A 33-state hierarchical machine for the layout tests: a media app with a sign-in flow three
/// levels deep, a parallel main screen (content and player regions) with a deep history, settings,
/// an error state and a final state; transitions between siblings, across levels and into the
/// parallel state, guarded, eventless, internal, targetless, multi-target and direct moves.
enum HierarchicalMachine {
    static var definition: MachineDefinition {
        MachineDefinition(
            name: "media",
            states: [
                StateDefinition(
                    id: "app", initial: ["splash"],
                    children: [
                        StateDefinition(
                            id: "splash",
                            transitions: [
                                TransitionDefinition(events: ["ready"], targets: ["auth"]),
                                TransitionDefinition(events: ["resume"], targets: ["library.history"]),
                            ]),
                        StateDefinition(
                            id: "auth",
                            children: [
                                StateDefinition(
                                    id: "welcome",
                                    transitions: [
                                        TransitionDefinition(events: ["signIn"], targets: ["signIn"]),
                                        TransitionDefinition(events: ["signUp"], targets: ["signUp"]),
                                    ]),
                                StateDefinition(
                                    id: "signIn",
                                    children: [
                                        StateDefinition(
                                            id: "email",
                                            transitions: [TransitionDefinition(events: ["next"], targets: ["password"])]
                                        ),
                                        StateDefinition(
                                            id: "password",
                                            transitions: [
                                                TransitionDefinition(
                                                    events: ["submit"], targets: ["twoFactor"],
                                                    condition: .named("needsCode")),
                                                TransitionDefinition(events: ["submit"], targets: ["main"]),
                                                TransitionDefinition(events: ["forgot"], targets: ["forgot"]),
                                            ]),
                                        StateDefinition(
                                            id: "twoFactor",
                                            transitions: [
                                                TransitionDefinition(
                                                    events: ["verified"], targets: ["home", "playing"]),
                                                TransitionDefinition(events: ["resend"]),
                                            ]),
                                    ]),
                                StateDefinition(
                                    id: "signUp",
                                    transitions: [TransitionDefinition(events: ["created"], targets: ["email"])]),
                                StateDefinition(
                                    id: "forgot",
                                    transitions: [TransitionDefinition(events: ["sent"], targets: ["welcome"])]),
                                StateDefinition(id: "authHelp"),
                            ],
                            transitions: [
                                TransitionDefinition(events: ["cancel"], targets: ["welcome"], kind: .internal)
                            ]),
                        StateDefinition(
                            id: "main", kind: .parallel,
                            children: [
                                StateDefinition(
                                    id: "content",
                                    children: [
                                        StateDefinition(
                                            id: "home",
                                            transitions: [
                                                TransitionDefinition(events: ["search"], targets: ["search"]),
                                                TransitionDefinition(events: ["library"], targets: ["library"]),
                                            ]),
                                        StateDefinition(
                                            id: "search",
                                            children: [
                                                StateDefinition(
                                                    id: "query",
                                                    transitions: [
                                                        TransitionDefinition(events: ["submit"], targets: ["results"])
                                                    ]),
                                                StateDefinition(
                                                    id: "results",
                                                    transitions: [
                                                        TransitionDefinition(events: ["select"], targets: ["detail"]),
                                                        TransitionDefinition(events: ["refine"], targets: ["query"]),
                                                    ]),
                                                StateDefinition(
                                                    id: "detail",
                                                    transitions: [
                                                        TransitionDefinition(events: ["save"], targets: ["book"])
                                                    ]),
                                            ], transitions: [TransitionDefinition(events: ["home"], targets: ["home"])]),
                                        StateDefinition(
                                            id: "library",
                                            children: [
                                                StateDefinition(id: "library.history", kind: .history, history: .deep),
                                                StateDefinition(
                                                    id: "shelves",
                                                    transitions: [
                                                        TransitionDefinition(events: ["open"], targets: ["book"])
                                                    ]),
                                                StateDefinition(
                                                    id: "book",
                                                    transitions: [
                                                        TransitionDefinition(events: ["close"], targets: ["shelves"])
                                                    ]),
                                            ], transitions: [TransitionDefinition(events: ["home"], targets: ["home"])]),
                                    ]),
                                StateDefinition(
                                    id: "player",
                                    children: [
                                        StateDefinition(
                                            id: "stopped",
                                            transitions: [TransitionDefinition(events: ["play"], targets: ["playing"])]),
                                        StateDefinition(
                                            id: "playing",
                                            transitions: [
                                                TransitionDefinition(events: ["pause"], targets: ["paused"]),
                                                TransitionDefinition(events: ["stop"], targets: ["stopped"]),
                                            ]),
                                        StateDefinition(
                                            id: "paused",
                                            transitions: [
                                                TransitionDefinition(events: ["play"], targets: ["playing"]),
                                                TransitionDefinition(
                                                    targets: ["stopped"], condition: .not(.inState("content"))),
                                            ]),
                                    ]),
                            ],
                            transitions: [
                                TransitionDefinition(events: ["settings"], targets: ["settings"]),
                                TransitionDefinition(events: ["error.*"], targets: ["error"]),
                            ]),
                        StateDefinition(
                            id: "settings",
                            children: [
                                StateDefinition(id: "general", validNextStates: ["account", "privacy", "about"]),
                                StateDefinition(
                                    id: "account",
                                    transitions: [TransitionDefinition(events: ["signOut"], targets: ["signIn"])],
                                    validNextStates: ["general"]),
                                StateDefinition(id: "privacy", validNextStates: ["general"]),
                                StateDefinition(id: "about", validNextStates: ["general"]),
                            ], transitions: [TransitionDefinition(events: ["back"], targets: ["library.history"])]),
                        StateDefinition(
                            id: "error",
                            transitions: [
                                TransitionDefinition(events: ["retry"], targets: ["splash"]),
                                TransitionDefinition(events: ["quit"], targets: ["done"]),
                            ]),
                    ]),
                StateDefinition(id: "done", kind: .final),
            ])
    }

    /// Every state id of ``definition``, depth first.
    static var stateIDs: [String] {
        var ids: [String] = []
        func collect(_ states: [StateDefinition]) {
            for state in states {
                ids.append(state.id)
                collect(state.children)
            }
        }
        collect(definition.states)
        return ids
    }
}
