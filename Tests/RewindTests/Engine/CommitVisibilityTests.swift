import Dispatch
import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// While a step's append waits for its commit, the session still shows the previous state and
/// no hook has run; the store shows nothing of it to readers.
struct CommitVisibilityTests {
    @Test(.hangGuard)
    func theNewStateIsVisibleOnlyOnceTheCommitReturned() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        let hooks = LockedBox(0)
        session.onDidEnter("greeting") { _ in hooks.withValue { $0 += 1 } }

        // Hold the next commit inside its write transaction until released.
        let inside = LockedBox(false)
        let release = DispatchSemaphore(value: 0)
        engine.commits.injectFaults { _ in
            inside.withValue { $0 = true }
            release.wait()
            return nil
        }
        let send = Task { try await session.send("launch") }
        while !inside.current { try await Task.sleep(for: .milliseconds(1)) }
        #expect(session.version == 1)
        #expect(session.configuration == ["initial"])
        #expect(hooks.current == 0)
        #expect(try engine.store.headSequence() == 1)

        engine.commits.injectFaults(nil)
        release.signal()
        let step = try await send.value
        #expect(step.target == ["greeting"])
        #expect(session.version == 2)
        #expect(hooks.current == 1)
        #expect(try engine.store.headSequence() == 2)
    }
}
