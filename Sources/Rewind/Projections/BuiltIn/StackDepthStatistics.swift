/// How deep the sessions' navigation stacks are (``NavigationStacks/depthStatistics(machine:)``).
public struct StackDepthStatistics: Sendable, Hashable {
    /// How many sessions were counted.
    public var sessions: Int
    /// For each depth (number of screens), how many sessions' stacks have it.
    public var histogram: [Int: Int]

    /// Creates statistics from a histogram.
    public init(histogram: [Int: Int] = [:]) {
        self.histogram = histogram
        self.sessions = histogram.values.reduce(0, +)
    }

    /// Counts one session whose stack is `stack`. ``NavigationStacks/depthStatistics(machine:)``
    /// folds a device's sessions with it, a fleet server its devices' sessions.
    public mutating func add(_ stack: ScreenStack) {
        histogram[stack.count, default: 0] += 1
        sessions += 1
    }

    /// The deepest stack (0 when there are no sessions).
    public var maximum: Int { histogram.keys.max() ?? 0 }

    /// The mean depth (0 when there are no sessions).
    public var mean: Double {
        guard sessions > 0 else { return 0 }
        return Double(histogram.reduce(0) { $0 + $1.key * $1.value }) / Double(sessions)
    }
}
