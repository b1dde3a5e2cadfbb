import RewindMachine

/// The smallest machine that takes any number of events: one state, `idle`, whose `tick` event
/// re-enters it. Tests tag each tick's payload to find it again in the log; the multi-process
/// test helper defines the same machine (a different definition would surface as a definition
/// mismatch on reload).
public enum TickerMachine {
    /// The registered name.
    public static let name = "ticker"
    /// The one event.
    public static let tick = "tick"

    /// The definition.
    public static var definition: MachineDefinition {
        MachineDefinition(name) {
            StateNode("idle") { On(tick, to: "idle") }
        }
    }

    /// The compiled machine.
    public static func machine() throws -> Machine {
        try Machine(definition)
    }
}
