@testable import RewindMachine

/// Definitions shared by the interchange tests.
enum InterchangeFixtures {
    /// A definition that sets every field of the model at least once, including Rewind-only
    /// fields and every case of every enum.
    static let everyField = MachineDefinition(
        name: "checkout",
        initial: ["cart"],
        states: [
            StateDefinition(
                id: "cart",
                onEntry: [.log(label: "cart", message: "entered"), .log(label: nil, message: nil)],
                onExit: [.cancel(sendID: "reminder")],
                navigation: .setRoot(screen: nil),
                validNextStates: ["payment"],
                ignoredEvents: ["ping", "analytics"]
            ),
            StateDefinition(
                id: "payment",
                initialTransition: TransitionDefinition(targets: ["card"], actions: [.raise(event: "payment.started")]),
                children: [
                    StateDefinition(
                        id: "card",
                        transitions: [
                            TransitionDefinition(
                                events: ["pay", "confirm.card"],
                                targets: ["review"],
                                condition: .all([.named("cardValid"), .not(.inState("offline"))]),
                                actions: [
                                    .custom("chargeCard"),
                                    .send(event: "timeout", delay: .milliseconds(1500), id: "reminder"),
                                ],
                                navigation: .push(screen: "reviewScreen")
                            ),
                            TransitionDefinition(events: ["*"], kind: .internal, condition: .inState("card")),
                            TransitionDefinition(
                                events: ["back"], targets: ["cart"], condition: .not(.inState("review")),
                                navigation: .popToRoot),
                            TransitionDefinition(events: ["any"], condition: .any([]), navigation: .pop),
                        ],
                        navigation: .replace(screen: "cardScreen"),
                        validNextStates: []
                    ),
                    StateDefinition(
                        id: "h", kind: .history, history: .deep,
                        initialTransition: TransitionDefinition(targets: ["card"])),
                    StateDefinition(id: "shallow", kind: .history, history: .shallow),
                ],
                transitions: [TransitionDefinition(targets: ["review"], navigation: .popTo(screen: "cart"))]
            ),
            StateDefinition(
                id: "review",
                kind: .parallel,
                children: [
                    StateDefinition(
                        id: "summary", initial: ["summary.idle"], children: [StateDefinition(id: "summary.idle")]),
                    StateDefinition(
                        id: "offline",
                        onEntry: [.send(event: "retry"), .send(event: "later", delay: .milliseconds(2000))]),
                ]
            ),
            StateDefinition(id: "done", kind: .final, onEntry: [.raise(event: "finished")]),
        ]
    )

    /// Every state id of a definition, depth first in document order.
    static func stateIDs(_ definition: MachineDefinition) -> [String] {
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
