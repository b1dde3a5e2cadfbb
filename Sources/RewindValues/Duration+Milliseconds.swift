extension Duration {
    /// The duration in whole milliseconds, truncated toward zero; beyond `Int64`'s range, its
    /// first or last value.
    ///
    /// The one conversion from the public API's unit (`Duration`: machine clocks, delays, due
    /// times) to the whole milliseconds the persisted forms keep (a definition's
    /// `delayMilliseconds`, a machine state's `dueMilliseconds`, SCXML's `delay`).
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        // Both components have the duration's sign, so the sum cannot cross zero.
        let (sum, overflowed) = milliseconds.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        if overflowed { return seconds < 0 ? .min : .max }
        return sum
    }
}
