import BenchmarkMachines
import Rewind

/// The baseline of the in-memory benchmarks: the routes-table seed's `[State: [Event: State]]`
/// dictionary machine, written as a Swift developer would.
struct DictionaryMachine {
    enum Screen: Hashable { case initial, greeting, login, home }
    enum Trigger: Hashable { case launch, start, loggedIn, logout }

    let table: [Screen: [Trigger: Screen]] = [
        .initial: [.launch: .greeting],
        .greeting: [.start: .login],
        .login: [.loggedIn: .home],
        .home: [.logout: .greeting],
    ]

    /// The state after `trigger`, or nil when `state` does not handle it.
    @inline(never)
    func send(_ trigger: Trigger, in state: Screen) -> Screen? {
        table[state]?[trigger]
    }

    /// The events that cycle the machine once launched.
    static let cycle: [Trigger] = [.start, .loggedIn, .logout]
}
