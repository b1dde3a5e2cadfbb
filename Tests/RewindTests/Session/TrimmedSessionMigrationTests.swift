import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// ``ResumePolicy/replayWithRegistered`` on a session whose history was trimmed: its records
/// after the base are re-run through the new definition from the base snapshot.
struct TrimmedSessionMigrationTests {
    /// A session of 60 records round the loop machine (ending on login), trimmed before
    /// version 40, and its live snapshot.
    private func recordTrimmed(in fixture: EngineFixture) async throws -> SessionSnapshot {
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        let session = try await HistoryTrimTests.longSession("long", records: 60, in: engine)
        #expect(session.configuration == ["login"])
        try engine.trimHistory(of: "long", before: 40)
        return session.snapshot
    }

    @Test(arguments: [UInt64(0), 10])
    func replayWithRegisteredMigratesATrimmedSessionFromItsBase(interval: UInt64) async throws {
        let fixture = try EngineFixture(snapshotInterval: interval)
        defer { fixture.remove() }
        let live = try await recordTrimmed(in: fixture)
        // Another definition: one more route (login → greeting by `help`), every recorded step reproduced.
        let changed = try HistoryTrimTests.loopMachine(more: [Route(from: "login", to: "greeting", by: "help")])
        #expect(changed.definition.contentVersion != live.definition)

        var engine = try fixture.open(registering: [changed])
        let migrated = try engine.session("long", policy: .replayWithRegistered)
        #expect(migrated.snapshot.state == live.state)
        #expect(migrated.snapshot.navigation == live.navigation)
        #expect(migrated.version == 60)
        #expect(migrated.snapshot.definition == changed.definition.contentVersion)
        // The new definition's route works, recorded after the migration's record.
        try await migrated.send("help")
        #expect(migrated.configuration == ["greeting"])
        let records = try engine.store.records(of: migrated.id)
        #expect(records.first?.version == 40)
        #expect(records.suffix(2).map(\.event) == ["rewind.migrate", "help"])
        #expect(try engine.checkStore().isConsistent)
        // Replay takes the state after the move from its record, and still begins at the base.
        #expect(try engine.replay().point(of: "long", at: 62).configuration == ["greeting"])
        #expect(throws: ReplayError.historyTrimmed(session: "long", requested: 39, firstVersion: 40)) {
            try engine.replay().point(of: "long", at: 39)
        }
        let snapshot = migrated.snapshot
        engine.close()

        // From now on the session resumes strictly under the new definition.
        engine = try fixture.open(registering: [changed])
        defer { engine.close() }
        #expect(try engine.session("long").snapshot == snapshot)
    }

    @Test func aNewDefinitionThatDivergesAfterTheBaseIsATypedDivergenceAndWritesNothing() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        _ = try await recordTrimmed(in: fixture)
        // Without the way back from home to greeting: the first `logout` after the base diverges.
        let withoutLoop = try Machine(
            MachineDefinition(
                name: "onboarding", initial: "initial",
                routes: [
                    Route(from: "initial", to: "greeting", by: "launch"),
                    Route(from: "greeting", to: "login", by: "start"),
                    Route(from: "login", to: "home", by: "loggedIn"),
                ],
                navigation: ["greeting": .setRoot(), "login": .push(), "home": .setRoot()]))
        let engine = try fixture.open(registering: [withoutLoop])
        defer { engine.close() }
        let head = try engine.store.headSequence()
        #expect {
            try engine.session("long", policy: .replayWithRegistered)
        } throws: { error in
            switch error as? EngineError {
            case .replayFailed(_, let version, _, _), .replayDivergence(_, let version, _, _, _): version > 40
            default: false
            }
        }
        #expect(try engine.store.headSequence() == head)
    }
}
