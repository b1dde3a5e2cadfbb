import Foundation
import Rewind
import RewindTestSupport
import Testing

/// A closed engine refuses requests with `EngineError.closed`; a session keeps its engine alive.
struct EngineLifecycleTests {
    @Test func sendingAfterCloseThrowsClosedAndChangesNothing() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let machine = try ExampleMachines.Onboarding.machine()
        var engine = try fixture.open(registering: [machine])
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        let ran = LockedBox(0)
        session.onDidTransition { _ in ran.withValue { $0 += 1 } }
        engine.close()
        await #expect(throws: EngineError.closed) { try await session.send("launch") }
        #expect(session.version == 1)
        #expect(ran.current == 0)
        engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        #expect(try engine.store.headSequence() == 1)
    }

    @Test func openingSessionsAfterCloseThrowsClosed() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.Onboarding.machine()])
        _ = try await engine.startSession(id: "user", machine: "onboarding")
        engine.close()
        #expect(throws: EngineError.closed) { try engine.session("user") }
        await #expect(throws: EngineError.closed) { try await engine.startSession(id: "other", machine: "onboarding") }
        #expect(throws: EngineError.closed) { try engine.sessions() }
    }

    /// Opens an engine and returns only a session of it.
    func sessionOfADroppedEngine(_ fixture: EngineFixture) async throws -> Session {
        let engine = try fixture.open(registering: [try ExampleMachines.Onboarding.machine()])
        return try await engine.startSession(id: "user", machine: "onboarding")
    }

    @Test func aSessionKeepsItsEngineAlive() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let session = try await sessionOfADroppedEngine(fixture)
        try await session.send("launch")
        #expect(session.configuration == ["greeting"])
        #expect(session.version == 2)
    }
}
