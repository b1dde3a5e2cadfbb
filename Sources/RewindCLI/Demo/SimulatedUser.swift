import Rewind

/// One simulated user of the demo: which flow they go through and how far, decided up front from
/// a seeded generator, then played through the real engine.
struct SimulatedUser: Sendable {
    /// What the user does, in order.
    enum Action: Sendable {
        case send(String, JSONValue)
        case enter(String, JSONValue)
    }

    var session: SessionID
    var machine: String
    var actions: [Action]

    /// Plays the user's actions on a new session; returns how many transitions were recorded.
    func run(on engine: Engine) async throws -> Int {
        let session = try await engine.startSession(id: session, machine: machine)
        for action in actions {
            switch action {
            case .send(let event, let payload): try await session.send(event, payload: payload)
            case .enter(let state, let data): try await session.enter(state, data: data)
            }
        }
        return actions.count + 1
    }

    private static let kanji: [(String, [String])] = [
        ("日", ["day", "sun"]), ("本", ["book", "origin"]), ("人", ["person"]), ("山", ["mountain"]),
        ("川", ["river"]), ("水", ["water"]), ("火", ["fire"]), ("木", ["tree"]),
    ]
    private static let words = ["日本", "本人", "山川", "火山", "水木", "人日"]

    /// A user of the onboarding flow (routes-table seed): launch → start → loggedIn, with
    /// drop-offs at each screen.
    static func onboarding(_ id: SessionID, using random: inout SeededGenerator) -> SimulatedUser {
        var actions: [Action] = []
        if random.chance(0.95) {
            actions.append(.send("launch", .null))
            if random.chance(0.8) {
                actions.append(.send("start", .null))
                if random.chance(0.7) {
                    let user = "user\(Int.random(in: 1...999, using: &random))"
                    actions.append(.send("loggedIn", ["user": .string(user)]))
                }
            }
        }
        return SimulatedUser(session: id, machine: "onboarding", actions: actions)
    }

    /// A user of the map demo (GKStateMachine seed): search, preview, go or clear, cancel.
    static func map(_ id: SessionID, using random: inout SeededGenerator) -> SimulatedUser {
        var actions: [Action] = []
        var rounds = Int.random(in: 1...3, using: &random)
        while rounds > 0, random.chance(0.9) {
            rounds -= 1
            let place = ["Tokyo Tower", "Shibuya", "Ueno Park", "Asakusa"].randomElement(using: &random) ?? "Tokyo"
            actions.append(.enter("preview", ["destination": .string(place)]))
            if random.chance(0.1) { break }  // looked at the route and left the app
            if random.chance(0.65) {
                actions.append(.enter("navigation", .null))
                if random.chance(0.5) { actions.append(.enter("start", .null)) } else { break }
            } else {
                actions.append(.enter("start", .null))
            }
        }
        return SimulatedUser(session: id, machine: "map", actions: actions)
    }

    /// A user of the Kanji navigation (GKStateMachine seed): all → detail(kanji) → list(word) → …
    static func kanji(_ id: SessionID, using random: inout SeededGenerator) -> SimulatedUser {
        var actions: [Action] = []
        var state = "all"
        for _ in 0..<Int.random(in: 1...7, using: &random) {
            switch state {
            case "all":
                state = "detail"
            case "detail":
                state = random.chance(0.6) ? "list" : "all"
            default:
                state = random.chance(0.7) ? "detail" : "all"
            }
            switch state {
            case "detail":
                let (character, meanings) = kanji.randomElement(using: &random) ?? ("日", ["day"])
                actions.append(
                    .enter(
                        "detail", ["character": .string(character), "meanings": .array(meanings.map { .string($0) })]))
            case "list":
                actions.append(.enter("list", ["word": .string(words.randomElement(using: &random) ?? "日本")]))
            default:
                actions.append(.enter("all", .null))
            }
        }
        return SimulatedUser(session: id, machine: "kanji", actions: actions)
    }
}
