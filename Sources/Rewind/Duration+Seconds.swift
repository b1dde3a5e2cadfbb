extension Duration {
    /// The duration in seconds, for reports (progress, rates): the one conversion of a measured
    /// `Duration` (from a `ContinuousClock`) to a number.
    package var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
