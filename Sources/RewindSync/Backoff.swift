import Foundation
import Rewind

/// How long an uploader waits before retrying after a failure: exponential, with jitter.
///
/// The delay before retry *n* (1 after the first failure) is `initial × multiplier^(n-1)`, at most
/// `maximum`, then jittered: a uniform share `jitter` of it is random, so a fleet of devices that
/// failed together (the server restarted) does not retry in step. With `jitter` 0.5 the delay lies
/// between half and all of the exponential value.
public struct Backoff: Sendable, Equatable {
    /// The delay before the first retry (before jitter).
    public var initial: Duration
    /// The factor each further failure multiplies the delay by.
    public var multiplier: Double
    /// The longest delay (before jitter).
    public var maximum: Duration
    /// The share of each delay that is random, 0 (none) to 1 (anywhere from 0 to the delay).
    public var jitter: Double

    /// A schedule from its parts; `multiplier` below 1 counts as 1 and `jitter` is clamped to 0…1.
    public init(
        initial: Duration = .seconds(1), multiplier: Double = 2, maximum: Duration = .seconds(300), jitter: Double = 0.5
    ) {
        self.initial = initial
        self.multiplier = Swift.max(multiplier, 1)
        self.maximum = maximum
        self.jitter = Swift.min(Swift.max(jitter, 0), 1)
    }

    /// The exponential delay before retry `attempt` (1-based), before jitter.
    public func nominalDelay(forAttempt attempt: Int) -> Duration {
        let exponent = Double(Swift.max(attempt, 1) - 1)
        let factor = Swift.min(pow(multiplier, exponent), 1e12)
        let scaled = initial.seconds * factor
        return scaled >= maximum.seconds ? maximum : .nanoseconds(Int64((scaled * 1e9).rounded()))
    }

    /// The delay before retry `attempt` with `unit` (uniform in 0..<1) as its random part:
    /// `nominal × (1 − jitter + jitter × unit)`.
    public func delay(forAttempt attempt: Int, unit: Double) -> Duration {
        let nominal = nominalDelay(forAttempt: attempt).seconds
        let share = 1 - jitter + jitter * Swift.min(Swift.max(unit, 0), 1)
        return .nanoseconds(Int64((nominal * share * 1e9).rounded()))
    }

    /// The delay before retry `attempt`, its random part drawn from `generator`.
    public func delay(forAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        delay(forAttempt: attempt, unit: Double.random(in: 0..<1, using: &generator))
    }
}
