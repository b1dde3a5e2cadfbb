import RewindMachine

extension ExampleMachines {
    /// The GKStateMachine map demo: start → preview → navigation, moved with
    /// `enter(_:data:in:now:)`; each state declares its valid next states.
    public enum Map {
        /// The states.
        public enum State: String, CaseIterable, Sendable {
            /// Searching: the map shows the user's location.
            case start
            /// A route is previewed.
            case preview
            /// Turn-by-turn navigation.
            case navigation
        }

        /// Valid next states: start → preview; preview → start (clear) or navigation (go);
        /// navigation → start (clear).
        public static let validNextStates: [State: [State]] = [
            .start: [.preview],
            .preview: [.start, .navigation],
            .navigation: [.start],
        ]

        /// The definition.
        public static var definition: MachineDefinition {
            MachineDefinition("map") {
                for state in State.allCases {
                    StateNode(state, validNextStates: validNextStates[state] ?? [])
                }
            }
        }

        /// The compiled machine.
        public static func machine() throws -> Machine {
            try Machine(definition)
        }
    }
}
