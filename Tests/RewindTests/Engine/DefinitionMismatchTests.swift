import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Resuming a session recorded under another definition of its machine: refused under
/// ``ResumePolicy/strict``, migrated by replay when the registered definition reproduces the
/// recording (the upgrade policy, the default, is tested in `DefinitionUpgradeTests`).
struct DefinitionMismatchTests {
    typealias Onboarding = ExampleMachines.Onboarding

    /// The onboarding flow with one more route (login → help): a different content version that
    /// still reproduces every recorded onboarding step.
    static var extendedOnboarding: MachineDefinition {
        MachineDefinition(
            name: "onboarding", initial: "initial",
            routes: Onboarding.routes + [Route(from: "login", to: "greeting", by: "help")],
            navigation: Dictionary(uniqueKeysWithValues: Onboarding.navigation.map { ($0.key.rawValue, $0.value) }))
    }

    /// The onboarding flow where `start` leads straight home: it does not reproduce a recording
    /// that went through login.
    static var shortcutOnboarding: MachineDefinition {
        MachineDefinition(
            name: "onboarding", initial: "initial",
            routes: [
                Route(from: Onboarding.Screen.initial, to: .greeting, by: Onboarding.Event.launch),
                Route(from: Onboarding.Screen.greeting, to: .home, by: Onboarding.Event.start),
                Route(from: Onboarding.Screen.login, to: .home, by: Onboarding.Event.loggedIn),
            ])
    }

    /// Records a session through greeting to login with the original definition; returns the
    /// fixture and the live snapshot.
    func recordOriginal() async throws -> (EngineFixture, SessionSnapshot) {
        let fixture = try EngineFixture(snapshotInterval: 2)
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        try await session.send("launch")
        try await session.send("start")
        return (fixture, session.snapshot)
    }

    @Test func resumingStrictlyUnderAChangedDefinitionThrowsDefinitionMismatch() async throws {
        let (fixture, live) = try await recordOriginal()
        defer { fixture.remove() }
        let changed = try Machine(Self.extendedOnboarding)
        #expect(changed.definition.contentVersion != live.definition)
        let engine = try fixture.open(registering: [changed])
        defer { engine.close() }
        #expect(
            throws: EngineError.definitionMismatch(
                session: SessionID("user"), machine: "onboarding", recorded: live.definition,
                registered: changed.definition.contentVersion)
        ) {
            try engine.session("user", policy: .strict)
        }
        #expect(try engine.store.headSequence() == 3)
    }

    @Test func replayWithRegisteredMigratesWhenTheNewDefinitionReproducesTheRecording() async throws {
        let (fixture, live) = try await recordOriginal()
        defer { fixture.remove() }
        let changed = try Machine(Self.extendedOnboarding)
        var engine = try fixture.open(registering: [changed])
        let migrated = try engine.session("user", policy: .replayWithRegistered)
        #expect(migrated.snapshot.state == live.state)
        #expect(migrated.snapshot.navigation == live.navigation)
        #expect(migrated.version == live.version)
        #expect(migrated.snapshot.definition == changed.definition.contentVersion)
        // The new definition's route works, and is recorded under the new definition, after the
        // migration's record.
        try await migrated.send("help")
        #expect(migrated.configuration == ["greeting"])
        let records = try engine.store.records(of: migrated.id)
        #expect(records.map(\.event) == ["rewind.start", "launch", "start", "rewind.migrate", "help"])
        #expect(records.suffix(2).allSatisfy { $0.definition == changed.definition.contentVersion })
        engine.close()

        // From now on the session resumes strictly under the new definition.
        engine = try fixture.open(registering: [changed])
        defer { engine.close() }
        #expect(try engine.session("user").snapshot == migrated.snapshot)
    }

    @Test func aMigratedSessionReloadsAsItWasResumed() async throws {
        let (fixture, live) = try await recordOriginal()
        defer { fixture.remove() }
        let changed = try Machine(Self.extendedOnboarding)
        let engine = try fixture.open(registering: [changed])
        defer { engine.close() }
        let migrated = try engine.session("user", policy: .replayWithRegistered)
        // Nothing recorded under the new definition yet: the head still names the old one, and
        // the reload migrates again instead of refusing.
        try await migrated.reload()
        #expect(migrated.snapshot.state == live.state)
        #expect(migrated.snapshot.definition == changed.definition.contentVersion)
        try await migrated.send("help")
        try await migrated.reload()
        #expect(migrated.configuration == ["greeting"])
        #expect(try engine.session("user").snapshot == migrated.snapshot)
    }

    @Test func replayWithRegisteredFailsWhenTheNewDefinitionDiverges() async throws {
        let (fixture, _) = try await recordOriginal()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Machine(Self.shortcutOnboarding)])
        defer { engine.close() }
        #expect(
            throws: EngineError.replayDivergence(
                session: SessionID("user"), version: 3, event: "start", recorded: ["login"], computed: ["home"])
        ) {
            try engine.session("user", policy: .replayWithRegistered)
        }
    }

    @Test func replayWithRegisteredFailsWhenTheNewDefinitionRejectsARecordedEvent() async throws {
        let (fixture, _) = try await recordOriginal()
        defer { fixture.remove() }
        let withoutStart = MachineDefinition(
            name: "onboarding", initial: "initial",
            routes: [Route(from: Onboarding.Screen.initial, to: .greeting, by: Onboarding.Event.launch)])
        let engine = try fixture.open(registering: [try Machine(withoutStart)])
        defer { engine.close() }
        do {
            _ = try engine.session("user", policy: .replayWithRegistered)
            Issue.record("the migration should have failed")
        } catch let EngineError.replayFailed(session, version, event, _) {
            #expect(session.rawValue == "user")
            #expect(version == 3)
            #expect(event == "start")
        }
    }
}
