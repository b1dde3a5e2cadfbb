/// How a machine's sessions went through its states (``ScreenFlows/funnel(machine:)``).
public struct Funnel: Sendable, Hashable {
    /// The machine.
    public var machine: String
    /// How many sessions of the machine there are.
    public var sessions: Int
    /// For each state, how many sessions have been in it at least once.
    public var reached: [String: Int]
    /// For each state, how many sessions are in it now: where they stopped (so far).
    public var stoppedAt: [String: Int]

    /// Creates a funnel.
    public init(machine: String, sessions: Int = 0, reached: [String: Int] = [:], stoppedAt: [String: Int] = [:]) {
        self.machine = machine
        self.sessions = sessions
        self.reached = reached
        self.stoppedAt = stoppedAt
    }

    /// Counts one session whose flow is `flow` (a session of ``machine``: the caller picks
    /// them): one more session, one more for each state it reached and each state it is in now.
    /// ``ScreenFlows/funnel(machine:)`` folds a device's sessions with it, a fleet server its
    /// devices' sessions.
    public mutating func add(_ flow: ScreenFlowProjection.Flow) {
        sessions += 1
        for state in flow.reached { reached[state, default: 0] += 1 }
        for state in flow.configuration { stoppedAt[state, default: 0] += 1 }
    }

    /// The funnel's steps along `states` (e.g. a flow's screens in order): for each, how many
    /// sessions reached it and how many stopped there.
    public func steps(along states: [String]) -> [(state: String, reached: Int, stopped: Int)] {
        states.map { ($0, reached[$0] ?? 0, stoppedAt[$0] ?? 0) }
    }
}
