import Rewind

/// What the demo prints after its run: where the sessions of each flow stopped, and the
/// navigation stacks of a few Kanji sessions.
struct DemoReport {
    let engine: Engine

    func print() throws {
        var stopped: [String: [String: Int]] = [:]
        var kanji: [SessionID] = []
        try engine.store.read { transaction in
            try transaction.forEachSession { info in
                let head = try transaction.record(at: info.headSequence)
                let state = head?.target.last ?? "?"
                stopped[info.machine, default: [:]][state, default: 0] += 1
                if info.machine == "kanji", info.headVersion >= 4, kanji.count < 3 { kanji.append(info.session) }
                return .next
            }
        }
        Swift.print("\nWhere sessions are now (by machine):")
        for (machine, states) in stopped.sorted(by: { $0.key < $1.key }) {
            let total = states.values.reduce(0, +)
            let parts = states.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }
            Swift.print("  \(machine) (\(total)): \(parts.joined(separator: ", "))")
        }
        if !kanji.isEmpty {
            Swift.print("\nNavigation stacks of Kanji sessions:")
            for id in kanji {
                let session = try engine.session(id)
                Swift.print("  \(id): \(session.navigationStack.screens.joined(separator: " › "))")
            }
        }
    }
}
