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

    /// A flow's funnel: how many sessions reached each screen and how many stopped there.
    struct Funnel: Encodable {
        /// One screen of the flow.
        struct Step: Encodable {
            var state: String
            var reached: Int
            var stopped: Int
        }
        var machine: String
        var sessions: Int
        var steps: [Step]
    }

    /// The Kanji sessions' navigation stacks: depth statistics and the deepest three.
    struct Stacks: Encodable {
        /// A session's stack, root first.
        struct Deepest: Encodable {
            var session: String
            var stack: [NavigationEntry]
        }
        var machine: String
        var sessions: Int
        var deepest: Int
        var meanDepth: Double
        var deepestStacks: [Deepest]
    }

    /// The funnel of every demo flow with sessions (screen-flows projection).
    func funnels() throws -> [Funnel] {
        try Self.flows.compactMap { flow in
            let funnel = try engine.screenFlows.funnel(machine: flow.machine)
            guard funnel.sessions > 0 else { return nil }
            return Funnel(
                machine: flow.machine, sessions: funnel.sessions,
                steps: funnel.steps(along: flow.states).map {
                    Funnel.Step(state: $0.state, reached: $0.reached, stopped: $0.stopped)
                })
        }
    }

    /// The Kanji navigation stacks (navigation projection).
    func stacks() throws -> Stacks {
        let stacks = try engine.navigationStacks.all()
            .filter { $0.key.rawValue.hasPrefix("kanji-") }
            .sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }
        let depth = try engine.navigationStacks.depthStatistics(machine: "kanji")
        return Stacks(
            machine: "kanji", sessions: depth.sessions, deepest: depth.maximum, meanDepth: depth.mean,
            deepestStacks: stacks.prefix(3).map { Stacks.Deepest(session: $0.key.rawValue, stack: $0.value.entries) })
    }

    func print() throws {
        Swift.print(
            "\nScreen-flow funnels (sessions that reached each screen \(Glyphs.current.dot) sessions that are there now):"
        )
        for funnel in try funnels() {
            Swift.print("  \(funnel.machine), \(funnel.sessions) sessions")
            for step in funnel.steps {
                let share = Double(step.reached) / Double(funnel.sessions)
                let bar = String(repeating: Glyphs.current.progressDone, count: Int((share * 30).rounded()))
                Swift.print(
                    "    \(step.state.padding(toLength: 11, withPad: " ", startingAt: 0))"
                        + "\(String(step.reached).leftPadded(5)) \(bar.padding(toLength: 30, withPad: " ", startingAt: 0))"
                        + " stopped here: \(step.stopped)")
            }
        }

        let navigation = try stacks()
        Swift.print(
            "\nNavigation stacks (kanji: \(navigation.sessions) sessions, deepest \(navigation.deepest), "
                + "mean depth \(String(format: "%.2f", navigation.meanDepth))):")
        for deepest in navigation.deepestStacks {
            Swift.print("  \(deepest.session.shown): \(deepest.stack.stackText)")
        }
        guard let session = navigation.deepestStacks.first?.session, let id = try? SessionID(session),
            let info = try engine.store.sessionInfo(for: id)
        else { return }
        let shown = session.shown
        Swift.print("\nReplay of \(shown) (`rewind replay \(shown)` steps through it):")
        var cursor = try engine.replayCursor(for: id)
        var point = try cursor.seek(to: 1)
        var points = [point]
        Swift.print(
            "  v\(point.version) \((point.event ?? "").shown)  \(Glyphs.current.arrow) \(point.activeStates.joined(separator: ",").shown)"
                + "  [\(point.navigation.screens.joined(separator: " \(Glyphs.current.stackSeparator) ").shown)]")
        while let next = try cursor.stepForward() {
            point = next
            points.append(point)
            let data = point.stateData.sorted { $0.key < $1.key }.map { "\($0.key.shown)=\($0.value.compactJSON)" }
            Swift.print(
                "  v\(point.version) \((point.event ?? "").shown) \(point.activeStates.joined(separator: ",").shown)"
                    + (data.isEmpty ? "" : " \(data.joined(separator: " "))")
                    + "  [\(point.navigation.screens.joined(separator: " \(Glyphs.current.stackSeparator) ").shown)]")
        }
        if points.count >= 3 {
            let from = points[1]
            let to = points[points.count - 1]
            Swift.print("\n`rewind diff \(shown) \(from.version) \(info.headVersion)`:")
            Swift.print(
                DiffReport(ReplayDiff(from: from, to: to)).text
                    .split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        }
        Swift.print(
            """

            Next: `rewind sessions`, `rewind history \(shown)`, `rewind replay \(shown)`, \
            `rewind graph kanji --session \(shown)`, `rewind verify`, `rewind --help`.
            """)
    }
}

extension String {
    /// The string padded on the left with spaces to `width`.
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
