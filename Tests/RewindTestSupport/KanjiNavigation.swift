import Rewind
import RewindExamples

/// The Kanji navigation of issue 18 with a way back: all / detail(kanji) / list(word) as in
/// ``ExampleMachines/Kanji`` (entering All pops to the root, Detail and List push), plus `back`
/// transitions that pop (from Detail to List, from List to Detail), so that the scenario
/// Detail(日) → List(日本) → Detail(本) → back → back can be walked.
public enum KanjiNavigation {
    /// The machine's registered name.
    public static let name = "kanji-back"

    /// 日: its character and meanings.
    public static let day: JSONValue = ["character": "日", "meanings": ["day", "sun"]]
    /// 本: its character and meanings.
    public static let book: JSONValue = ["character": "本", "meanings": ["book", "origin"]]
    /// The word 日本.
    public static let japan: JSONValue = ["word": "日本"]

    /// The definition.
    public static var definition: MachineDefinition {
        MachineDefinition(name) {
            StateNode("all", navigation: .popToRoot, validNextStates: ["detail"])
            StateNode("detail", navigation: .push(), validNextStates: ["all", "list"]) {
                On("back", to: "list", navigation: .pop)
            }
            StateNode("list", navigation: .push(), validNextStates: ["detail", "all"]) {
                On("back", to: "detail", navigation: .pop)
            }
        }
    }

    /// The compiled machine.
    public static func machine() throws -> Machine {
        try Machine(definition)
    }

    /// The routes of the app: one per screen above the root, with the screen's data, decoded
    /// from a navigation entry's `{"screen": …, "data": …}`.
    package enum Route: Hashable, Decodable, Sendable {
        /// A kanji's detail.
        case detail(ExampleMachines.Kanji.Character)
        /// A word's kanji.
        case list(ExampleMachines.Kanji.Word)

        private enum CodingKeys: String, CodingKey { case screen, data }

        /// Decodes `{"screen": "detail" | "list", "data": …}`.
        package init(from decoder: any Decoder) throws {
            let entry = try decoder.container(keyedBy: CodingKeys.self)
            switch try entry.decode(String.self, forKey: .screen) {
            case "detail": self = .detail(try entry.decode(ExampleMachines.Kanji.Character.self, forKey: .data))
            case "list": self = .list(try entry.decode(ExampleMachines.Kanji.Word.self, forKey: .data))
            case let screen:
                throw DecodingError.dataCorruptedError(
                    forKey: .screen, in: entry, debugDescription: "no route for screen \(screen)")
            }
        }
    }

    /// The entry of `screen` with `data`.
    public static func entry(_ screen: String, _ data: JSONValue = .null) -> NavigationEntry {
        NavigationEntry(screen: screen, data: data)
    }

    /// The stack after each version of ``walk(_:in:)``'s session, version 1 first.
    public static let stacks: [[NavigationEntry]] = [
        [entry("all")],
        [entry("all"), entry("detail", day)],
        [entry("all"), entry("detail", day), entry("list", japan)],
        [entry("all"), entry("detail", day), entry("list", japan), entry("detail", book)],
        [entry("all"), entry("detail", day), entry("list", japan)],
        [entry("all"), entry("detail", day)],
    ]

    /// The state data after each version of ``walk(_:in:)``'s session, version 1 first.
    public static let stateData: [[String: JSONValue]] = [
        [:], ["detail": day], ["list": japan], ["detail": book], ["list": japan], ["detail": day],
    ]

    /// Starts session `id` of the machine (registered under ``name``) in `engine` and walks
    /// all → Detail(日) → List(日本) → Detail(本) → back → back: six versions (see ``stacks``).
    @discardableResult
    public static func walk(_ id: String, in engine: Engine) async throws -> Session {
        let session = try await engine.startSession(id: id, machine: name)
        try await session.enter("detail", data: day)
        try await session.enter("list", data: japan)
        try await session.enter("detail", data: book)
        try await session.send("back")
        try await session.send("back")
        return session
    }
}
