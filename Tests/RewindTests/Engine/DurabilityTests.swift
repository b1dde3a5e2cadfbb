import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Durable by default; one flush per commit or no-sync on request, with an explicit flush; the
/// engines of one process on one store get the strongest level one of them asks for.
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
        #expect(try engine.effectiveDurability == .durable)
        #expect(try engine.store.syncOptions == [])
    }

    @Test(arguments: [
        (Durability.durable, EnvironmentOptions()),
        (.lastCommitMayRollBack, .noMetaSync),
        (.noSync, .noSync),
    ])
    func eachLevelSetsTheStoresSyncOptionsAndNothingElse(durability: Durability, options: EnvironmentOptions)
        async throws
    {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        // Whatever sync options the store configuration asked for, the level decides.
        let engine = try fixture.open(registering: [try TickerMachine.machine()]) {
            $0.durability = durability
            $0.store.environment.options.formUnion([.noSync, .noMetaSync])
        }
        #expect(engine.store.configuration.environment.options.intersection(EnvironmentOptions.syncOptions) == options)
        #expect(try engine.store.syncOptions == options)
        #expect(try engine.effectiveDurability == durability)
        let session = try await engine.startSession(id: "s", machine: TickerMachine.name)
        for _ in 0..<3 { try await session.send(TickerMachine.tick) }
        try engine.flush()
        engine.close()

        let reopened = try fixture.open(registering: [try TickerMachine.machine()], durability: .durable)
        defer { reopened.close() }
        #expect(try reopened.session("s").version == 4)
    }

    @Test func enginesOfOneProcessOnOneStoreGetTheStrongestLevelAskedFor() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let machine = try TickerMachine.machine()
        let importer = try fixture.open(registering: [machine], durability: .noSync)
        defer { importer.close() }
        let imported = try await importer.startSession(id: "import", machine: TickerMachine.name)
        try await imported.send(TickerMachine.tick)
        #expect(try importer.effectiveDurability == .noSync)

        // LMDB's flags are per process and directory: the app's durable engine makes every
        // commit of the store durable while it is open, the importer's too.
        let app = try fixture.open(registering: [machine], durability: .durable)
        #expect(try importer.effectiveDurability == .durable)
        #expect(try app.effectiveDurability == .durable)
        try await imported.send(TickerMachine.tick)
        let screen = try await app.startSession(id: "screen", machine: TickerMachine.name)
        try await screen.send(TickerMachine.tick)

        let oneFlush = try fixture.open(registering: [machine], durability: .lastCommitMayRollBack)
        #expect(try oneFlush.effectiveDurability == .durable)
        app.close()
        #expect(try importer.effectiveDurability == .lastCommitMayRollBack)
        oneFlush.close()
        #expect(try importer.effectiveDurability == .noSync)
        try await imported.send(TickerMachine.tick)
        #expect(try importer.session("import").version == 4)
        #expect(try importer.session("screen").version == 2)
        #expect(try LogAudit(importer.writableStore).problems.isEmpty)
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
        #expect(try LogAudit(engine.writableStore).records.count == 4)
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
