import Foundation
import Rewind
import RewindTestSupport
import Testing

/// The errors of requests queued from hooks: kept for the app to read, bounded, and drained by
/// `takeDeferredErrors()`.
struct DeferredErrorTests {
    typealias Onboarding = ExampleMachines.Onboarding

    @Test func deferredErrorsAreBoundedAndTakenOnce() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let failing = Session.maximumDeferredErrors + 50
        let session = try await engine.startSession(id: "user", machine: "onboarding") { session in
            session.onDidEnter(Onboarding.Screen.greeting) { _ in
                // Events the greeting screen does not take: each queued request fails.
                for index in 0..<failing { session.setNeedsTransition("no-such-event-\(index)") }
            }
        }
        try await session.send(Onboarding.Event.launch)
        // The queued requests ran (and failed) before `send` returned; the latest are kept.
        let kept = session.deferredErrors
        #expect(kept.count == Session.maximumDeferredErrors)
        #expect(kept.allSatisfy { "\($0)".contains("no-such-event") })
        // Oldest dropped first: the first kept is the 51st queued, the last kept the last queued.
        #expect(
            kept.first.map { "\($0)" }?.contains("no-such-event-\(failing - Session.maximumDeferredErrors)") == true)
        #expect(kept.last.map { "\($0)" }?.contains("no-such-event-\(failing - 1)") == true)
        let taken = session.takeDeferredErrors()
        #expect(taken.count == Session.maximumDeferredErrors)
        #expect(session.deferredErrors.isEmpty)
        #expect(session.takeDeferredErrors().isEmpty)
    }
}
