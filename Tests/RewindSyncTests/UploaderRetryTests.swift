import Foundation
import Rewind
import RewindTestSupport
import Testing

@testable import RewindSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The background upload against a server that cannot be reached (a port nothing listens on, a
/// real connection refused): it backs off on the injected clock by the schedule, retries only
/// when the clock passes the delay, never blocks the engine, and stops when asked.
@Suite(.hangGuard) struct UploaderRetryTests {
    /// A port of 127.0.0.1 that nothing listens on: bound, then closed.
    static func closedPort() throws -> Int {
        let (descriptor, port) = try loopbackSocket(listening: nil)
        close(descriptor)
        return port
    }

    @Test func failuresBackOffExponentiallyOnTheInjectedClock() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [ExampleMachines.Onboarding.machine()])
        defer { engine.close() }
        _ = try await engine.startSession(id: "offline", machine: ExampleMachines.Onboarding.definition.name)

        let clock = ManualClock()
        let backoff = Backoff(initial: .seconds(2), multiplier: 2, maximum: .seconds(20), jitter: 0.5)
        let uploader = Uploader(
            engine: engine, server: URL(string: "http://127.0.0.1:\(try Self.closedPort())")!, key: "rewind_ingest_x",
            configuration: UploaderConfiguration(
                coalescingDelay: .zero, backoff: backoff, requestTimeout: .seconds(30)),
            clock: clock)
        var sleeps = clock.sleeps.makeAsyncIterator()
        await uploader.start()
        for attempt in 1...6 {
            // The uploader failed and now waits on the clock: exactly the schedule's delay.
            let delay = try #require(await sleeps.next())
            let nominal = backoff.nominalDelay(forAttempt: attempt)
            #expect(
                delay >= nominal * 0.5 && delay <= nominal,
                "retry \(attempt) after \(delay), not within \(nominal * 0.5)…\(nominal)")
            let progress = uploader.progress
            #expect(progress.status == .retrying(attempt: attempt, delay: delay))
            #expect(progress.failures == attempt)
            guard case .network = progress.lastError else {
                Issue.record("a refused connection is a network error, got \(String(describing: progress.lastError))")
                break
            }
            #expect(progress.lastError?.isRetryable == true)
            // Sends go on while it waits: the engine is not held.
            _ = try await engine.startSession(
                id: "offline-\(attempt)", machine: ExampleMachines.Onboarding.definition.name)
            // Nothing happens until the clock passes the delay: the uploader still sleeps...
            clock.advance(by: delay - .milliseconds(1))
            #expect(clock.sleeperCount == 1)
            #expect(uploader.progress.failures == attempt)
            // ...then the next attempt fails and the next sleep starts.
            clock.advance(by: .milliseconds(1))
        }
        #expect(uploader.progress.acknowledgedThrough == 0)
        await uploader.stop()
        #expect(uploader.progress.status == .stopped)
    }
}
