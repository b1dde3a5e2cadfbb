extension ContinuousClock.Instant {
    /// Whole nanoseconds from `start` to this instant.
    public func nanoseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = start.duration(to: self).components
        return Int(elapsed.seconds) * 1_000_000_000 + Int(elapsed.attoseconds / 1_000_000_000)
    }
}

extension Duration {
    /// The duration in seconds.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
