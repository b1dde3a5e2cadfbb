import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Durable by default; no-sync on request, with an explicit flush.
struct DurabilityTests {
    @Test func durableIsTheDefaultAndSyncsEveryCommit() throws {
        #expect(EngineConfiguration().durability == .durable)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Even a store configuration asking for no-sync is made durable by a durable engine.
        var configuration = EngineConfiguration()
        configuration.store.environment.options.insert(.noSync)
        let engine = try Engine(directory: directory.path, configuration: configuration)
        defer { engine.close() }
        #expect(!engine.store.configuration.environment.options.contains(.noSync))
    }

    @Test func noSyncEngineKeepsEverythingAfterFlushAndReopen() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let machine = try ExampleMachines.Onboarding.machine()
        var engine = try fixture.open(registering: [machine], durability: .noSync)
        #expect(engine.store.configuration.environment.options.contains(.noSync))
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        for event in ["launch", "start", "loggedIn"] { try await session.send(event) }
        try engine.flush()
        let live = session.snapshot
        engine.close()

        engine = try fixture.open(registering: [machine], durability: .durable)
        defer { engine.close() }
        #expect(try engine.session("user").snapshot == live)
        #expect(try LogAudit(engine.store).records.count == 4)
    }

    @Test func durableEngineAcknowledgesOnlyCommittedRecords() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let machine = try ExampleMachines.Onboarding.machine()
        var engine = try fixture.open(registering: [machine], durability: .durable)
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        try await session.send("launch")
        let live = session.snapshot
        engine.close()
        engine = try fixture.open(registering: [machine], durability: .durable)
        defer { engine.close() }
        #expect(try engine.session("user").snapshot == live)
    }
}
