import RewindMachine

extension ExampleMachines {
    /// The GKStateMachine Kanji navigation: all kanji / detail(kanji) / list(word). States carry
    /// data (the kanji, the word); entering All pops the navigation stack to its root (it is the
    /// root on the first entry, when there is no previous state); Detail and List push.
    public enum Kanji {
        /// The states.
        public enum State: String, CaseIterable, Sendable {
            /// The list of all kanji.
            case all
            /// One kanji's detail; carries a ``Kanji/Character``.
            case detail
            /// The kanji used in one word; carries a ``Kanji/Word``.
            case list
        }

        /// The data of `detail`.
        public struct Character: Codable, Hashable, Sendable {
            /// The kanji itself, such as "日".
            public var character: String
            /// Its meanings.
            public var meanings: [String]

            /// Creates a kanji.
            public init(character: String, meanings: [String]) {
                self.character = character
                self.meanings = meanings
            }
        }

        /// The data of `list`.
        public struct Word: Codable, Hashable, Sendable {
            /// The word, such as "日本".
            public var word: String

            /// Creates a word.
            public init(word: String) {
                self.word = word
            }
        }

        /// The definition.
        public static var definition: MachineDefinition {
            MachineDefinition("kanji") {
                StateNode(State.all, navigation: .popToRoot, validNextStates: [.detail])
                StateNode(State.detail, navigation: .push(), validNextStates: [.all, .list])
                StateNode(State.list, navigation: .push(), validNextStates: [.detail, .all])
            }
        }

        /// The compiled machine.
        public static func machine() throws -> Machine {
            try Machine(definition)
        }
    }
}
