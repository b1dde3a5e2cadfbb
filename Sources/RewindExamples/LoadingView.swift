import RewindMachine

extension ExampleMachines {
    /// StateViewController's view state: `loading`, `ready(model)` (the model travels as the
    /// payload of `loaded` and becomes ready's data), `error(message)`; `reload` and `retry` go back
    /// to loading.
    public enum LoadingView {
        /// The states.
        public enum State: String, CaseIterable, Sendable {
            /// Loading the model.
            case loading
            /// Showing the model (carried as state data).
            case ready
            /// Showing an error (its message carried as state data).
            case error
        }

        /// The events.
        public enum Event: String, CaseIterable, Sendable {
            /// The model arrived (payload: the model).
            case loaded
            /// Loading failed (payload: the error message).
            case failed
            /// Reload from the ready state.
            case reload
            /// Retry from the error state.
            case retry
        }

        /// A model the ready state can carry.
        public struct Model: Codable, Hashable, Sendable {
            /// The title shown.
            public var title: String
            /// The items listed.
            public var items: [String]

            /// Creates a model.
            public init(title: String, items: [String]) {
                self.title = title
                self.items = items
            }
        }

        /// The definition.
        public static var definition: MachineDefinition {
            MachineDefinition("loading-view") {
                StateNode(State.loading) {
                    On(Event.loaded, to: State.ready)
                    On(Event.failed, to: State.error)
                }
                StateNode(State.ready) {
                    On(Event.reload, to: State.loading)
                }
                StateNode(State.error) {
                    On(Event.retry, to: State.loading)
                }
            }
        }

        /// The compiled machine.
        public static func machine() throws -> Machine {
            try Machine(definition)
        }
    }
}
