import Rewind

/// What the demo prints after its run, all answered from the log: the screen-flow funnel of each
/// machine (screen-flows projection), a few navigation stacks (navigation projection), and a short
/// replay of one Kanji session with the diff between two of its points (replay engine).
struct DemoReport {
    let engine: Engine

    /// The screens of each demo flow, in the order a user meets them.
    static let flows: [(machine: String, states: [String])] = [
        ("onboarding", ["initial", "greeting", "login", "home"]),
        ("map", ["start", "preview", "navigation"]),
        ("kanji", ["all", "detail", "list"]),
    ]

    func print() throws {
        Swift.print("\nScreen-flow funnels (sessions that reached each screen · sessions that are there now):")
        for flow in Self.flows {
            let funnel = try engine.screenFlows.funnel(machine: flow.machine)
            guard funnel.sessions > 0 else { continue }
            Swift.print("  \(flow.machine), \(funnel.sessions) sessions")
            for step in funnel.steps(along: flow.states) {
                let share = Double(step.reached) / Double(funnel.sessions)
                let bar = String(repeating: "█", count: Int((share * 30).rounded()))
                Swift.print("    \(step.state.padding(toLength: 11, withPad: " ", startingAt: 0))"
                    + "\(String(step.reached).leftPadded(5)) \(bar.padding(toLength: 30, withPad: " ", startingAt: 0))"
                    + " stopped here: \(step.stopped)")
            }
        }

        let stacks = try engine.navigationStacks.all()
            .filter { $0.key.rawValue.hasPrefix("kanji-") }
            .sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }
        let depth = try engine.navigationStacks.depthStatistics(machine: "kanji")
        Swift.print("\nNavigation stacks (kanji: \(depth.sessions) sessions, deepest \(depth.maximum), "
            + "mean depth \(String(format: "%.2f", depth.mean))):")
        for (session, stack) in stacks.prefix(3) {
            Swift.print("  \(session): \(stack.entries.stackText)")
        }

        guard let (session, _) = stacks.first, let id = try? SessionID(session.rawValue),
              let info = try engine.store.sessionInfo(for: id) else { return }
        Swift.print("\nReplay of \(session) (`rewind replay \(session)` steps through it):")
        var cursor = try engine.replayCursor(for: id)
        var point = try cursor.seek(to: 1)
        var points = [point]
        Swift.print("  v\(point.version) \(point.event ?? "")  → \(point.activeStates.joined(separator: ","))"
            + "  [\(point.navigation.screens.joined(separator: " › "))]")
        while let next = try cursor.stepForward() {
            point = next
            points.append(point)
            let data = point.stateData.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.compactJSON)" }
            Swift.print("  v\(point.version) \(point.event ?? "") \(point.activeStates.joined(separator: ","))"
                + (data.isEmpty ? "" : " \(data.joined(separator: " "))")
                + "  [\(point.navigation.screens.joined(separator: " › "))]")
        }
        if points.count >= 3 {
            let from = points[1], to = points[points.count - 1]
            Swift.print("\n`rewind diff \(session) \(from.version) \(info.headVersion)`:")
            Swift.print(DiffReport(ReplayDiff(from: from, to: to)).text
                .split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        }
        Swift.print("""

            Next: `rewind sessions`, `rewind history \(session)`, `rewind replay \(session)`, \
            `rewind graph kanji --session \(session)`, `rewind verify`, `rewind --help`.
            """)
    }
}

extension String {
    /// The string padded on the left with spaces to `width`.
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
