import Rewind

/// The machines the benchmarks and `ProfileDriver` run (one definition for both).
public enum BenchMachines {
    /// The onboarding flow (the routes-table seed) made to cycle: initial → greeting → login →
    /// home → greeting … A flat machine: every event is handled by the active atomic state.
    public static var flat: MachineDefinition {
        MachineDefinition("onboarding-cycle") {
            StateNode("initial") { On("launch", to: "greeting") }
            StateNode("greeting", navigation: .setRoot()) { On("start", to: "login") }
            StateNode("login", navigation: .push()) { On("loggedIn", to: "home") }
            StateNode("home", navigation: .setRoot()) { On("logout", to: "greeting") }
        }
    }

    /// The events that cycle ``flat`` once it has been launched.
    public static let flatCycle = [Event("start"), Event("loggedIn"), Event("logout")]

    /// Three levels (app > main > feed/detail, app > settings): three events in four bubble up to
    /// an ancestor (`back` to `main`, `settings` and `home` to `app`).
    public static var hierarchical: MachineDefinition {
        MachineDefinition("hierarchical") {
            StateNode("app", initial: "main") {
                StateNode("main", initial: "feed") {
                    StateNode("feed") { On("open", to: "detail") }
                    StateNode("detail")
                    On("back", to: "feed")
                }
                StateNode("settings")
                On("settings", to: "settings")
                On("home", to: "main")
            }
        }
    }

    /// The events that cycle ``hierarchical``.
    public static let hierarchicalCycle = [Event("open"), Event("back"), Event("settings"), Event("home")]

    /// Two parallel regions (playback, volume), each a two-state toggle.
    public static var parallel: MachineDefinition {
        MachineDefinition("parallel") {
            ParallelNode("player") {
                StateNode("playback", initial: "paused") {
                    StateNode("paused") { On("play", to: "playing") }
                    StateNode("playing") { On("pause", to: "paused") }
                }
                StateNode("volume", initial: "normal") {
                    StateNode("normal") { On("mute", to: "muted") }
                    StateNode("muted") { On("unmute", to: "normal") }
                }
            }
        }
    }

    /// The events that cycle ``parallel``.
    public static let parallelCycle = [Event("play"), Event("mute"), Event("pause"), Event("unmute")]
}
