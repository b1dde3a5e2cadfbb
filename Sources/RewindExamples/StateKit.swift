import RewindMachine

extension ExampleMachines {
    /// The StateKit chart: `root` enters `loading`; the API's answer (handled by `root`, so it
    /// bubbles up from any child) moves to `regularView` or `errorView` without leaving `root`;
    /// `errorView` handles retry.
    public enum StateKit {
        /// The states.
        public enum State: String, CaseIterable, Sendable {
            /// The chart's root.
            case root
            /// Fetching data, spinner shown.
            case loading
            /// Data shown.
            case regularView
            /// The error view.
            case errorView
        }

        /// The events.
        public enum Event: String, CaseIterable, Sendable {
            /// The API answered with data.
            case apiRespondedSuccessfully
            /// The API failed.
            case apiRespondedError
            /// The user pressed retry on the error view.
            case userPressedRetryButton
        }

        /// The definition.
        public static var definition: MachineDefinition {
            MachineDefinition("statekit") {
                StateNode(State.root, initial: .loading) {
                    StateNode(State.loading)
                    StateNode(State.regularView)
                    StateNode(State.errorView) {
                        On(Event.userPressedRetryButton, to: State.loading)
                    }
                    // Internal: StateKit moves through the least common ancestor, so `root` itself
                    // is neither exited nor re-entered (an external transition would re-enter it).
                    On(Event.apiRespondedSuccessfully, to: State.regularView, type: .internal)
                    On(Event.apiRespondedError, to: State.errorView, type: .internal)
                }
            }
        }

        /// The compiled machine.
        public static func machine() throws -> Machine {
            try Machine(definition)
        }
    }
}
