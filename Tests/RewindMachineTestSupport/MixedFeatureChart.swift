import RewindMachine

/// A chart using every feature that makes a step's outcome dynamic next to ones the machine's
/// table precomputes: the machine of the equivalence walks of the prepared and table paths
/// (RewindMachineTests' PreparedEventTests, RewindTests' SessionTableStepTests).
public enum MixedFeatureChart {
    /// Every feature that makes an outcome dynamic, next to ones that stay precomputed: named
    /// guards (on transitions and eventless ones), custom actions, raised events, `In()` guards,
    /// eventless chains, targetless transitions with navigation, prefix descriptors, `*`,
    /// ignored events, done events of parallel regions, a top-level final state and history.
    /// `delayedSend: false` leaves out the delayed `<send>` (when it comes due depends on the wall
    /// clock, so two sessions compared step by step could see it due at different steps).
    public static func definition(delayedSend: Bool = true) -> MachineDefinition {
        MachineDefinition("mixed") {
            StateNode("top", initial: "a", ignoring: ["noise"]) {
                StateNode("a", navigation: .push()) {
                    On("next", to: "b")
                    On("guarded", to: "c", guard: .named("isEven"))
                    On("count", actions: [.custom("increment")])
                    On("jump", to: "p")
                    On("wild", to: "catchAll")
                }
                StateNode("b", navigation: .replace()) {
                    On("next", to: "c")
                    On("raise", actions: [.raise(event: "raised")])
                    On("raised", to: "a")
                    On("check", to: "a", guard: .inState("b"))
                    On("check", to: "c")
                    On("nav", navigation: .pop)
                    On("logIt", actions: [.log(label: "b", message: "logged")])
                    if delayedSend {
                        On("later", actions: [.send(event: "next", delay: .milliseconds(5), id: "t")])
                    }
                }
                StateNode("c", navigation: .push()) {
                    Always(to: ["a"], guard: .named("isEven"))
                    On("next", to: "chain")
                    On("deep", to: "remembering")
                }
                StateNode("chain") { Always(to: ["b"]) }
                StateNode("catchAll") { On(events: ["*"], to: ["a"]) }
                StateNode("remembering", initial: "r1") {
                    HistoryNode("remembering.history", .shallow)
                    StateNode("r1") { On("next", to: "r2") }
                    StateNode("r2") { On("next", to: "r1") }
                    On("out", to: "a")
                }
                ParallelNode("p") {
                    StateNode("left", initial: "l1") {
                        StateNode("l1") { On("finish", to: "l2") }
                        FinalNode("l2")
                    }
                    StateNode("right", initial: "r1x") {
                        StateNode("r1x") { On("finish.right", to: "r2x") }
                        FinalNode("r2x")
                    }
                    On("done.state.p", to: "a")
                }
                On("reset", to: "a")
                On("back", to: "remembering.history")
                On("quit", to: "end")
            }
            FinalNode("end")
        }
    }

    /// The named guard (`isEven`: the context's `count` is even) and action (`increment` it).
    public static var bindings: Bindings {
        Bindings(
            guards: ["isEven": { _, context in Int(context["count"]?.doubleValue ?? 0) % 2 == 0 }],
            actions: [
                "increment": { scope in
                    scope.context["count"] = .number((scope.context["count"]?.doubleValue ?? 0) + 1)
                }
            ])
    }
}
