import RewindSync
import RewindTestSupport
import Testing

/// The retry schedule: exponential, capped, jittered within its bounds.
@Suite struct BackoffTests {
    @Test func delaysDoubleUpToTheMaximum() {
        let backoff = Backoff(initial: .milliseconds(500), multiplier: 2, maximum: .seconds(10), jitter: 0.5)
        #expect(
            (1...8).map { backoff.nominalDelay(forAttempt: $0) } == [
                .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10),
                .seconds(10),
            ])
        // Far past the cap the exponent does not overflow.
        #expect(backoff.nominalDelay(forAttempt: 10_000) == .seconds(10))
    }

    @Test func jitterTakesAShareOfEachDelay() {
        let backoff = Backoff(initial: .seconds(1), multiplier: 3, maximum: .seconds(60), jitter: 0.25)
        #expect(backoff.delay(forAttempt: 2, unit: 0) == .milliseconds(2250))
        #expect(backoff.delay(forAttempt: 2, unit: 1) == .seconds(3))
        var random = SeededRandom(seed: 22)
        var seen: Set<Duration> = []
        for attempt in 1...6 {
            let nominal = backoff.nominalDelay(forAttempt: attempt)
            for _ in 0..<50 {
                let delay = backoff.delay(forAttempt: attempt, using: &random)
                #expect(
                    delay >= nominal * 0.75 && delay <= nominal,
                    "attempt \(attempt): \(delay) outside \(nominal * 0.75)…\(nominal)")
                seen.insert(delay)
            }
        }
        #expect(seen.count > 100, "jitter spreads the delays")
        let none = Backoff(initial: .seconds(1), jitter: 0)
        #expect(none.delay(forAttempt: 3, unit: 0.9) == .seconds(4))
    }
}
