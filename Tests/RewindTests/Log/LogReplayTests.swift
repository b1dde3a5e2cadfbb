import Foundation
import Rewind
import RewindTestSupport
import Testing

/// ``LogReplay`` over a second log — ``InMemoryTransitionLog``, a copy of the store's records,
/// session heads and definitions without LMDB and without snapshots, as a fleet server keeps
/// them — answers exactly as the engine does over its LMDB store: history, the point at every
/// version, diffs, verification and the exported archive's bytes.
struct LogReplayTests {
    /// Expects `replay` to say about `session` what `engine` says, at every version; returns the
    /// points, so a test can check them against the live session too.
    @discardableResult
    func expectSameReplay(
        of session: SessionID, engine: Engine, bindings: Bindings = Bindings(), replay: LogReplay,
        verifyingAgainst machines: [Machine]
    ) throws -> [ReplayPoint] {
        #expect(try replay.history(of: session) == engine.history(of: session))
        let filter = HistoryFilter(versions: 2...4)
        #expect(
            try replay.history(of: session, filter: filter, limit: 2)
                == engine.history(of: session, filter: filter, limit: 2))

        let head = try #require(try engine.store.sessionInfo(for: session)).headVersion
        var cursor = try engine.replayCursor(for: session, bindings: bindings)
        var points: [ReplayPoint] = []
        for version in 0...head {
            let expected = try cursor.seek(to: version)
            let point = try replay.point(of: session, at: version)
            #expect(point == expected, "\(session) at version \(version)")
            points.append(point)
        }
        // The session's state changes: the comparison above is not between empty points.
        #expect(Set(points.map(\.state)).count > 2)

        var stepping = try replay.cursor(for: session)
        #expect(try stepping.headVersion() == head)
        for version in 1...head {
            let point = try #require(try stepping.stepForward())
            #expect(point == points[Int(version)], "\(session) stepping to version \(version)")
        }
        #expect(try stepping.stepForward() == nil)

        for from in [0, head / 2, head] {
            for to in [0, head / 2, head] {
                #expect(
                    try replay.diff(session, from: from, to: to)
                        == engine.diff(session, from: from, to: to, bindings: bindings),
                    "\(session) from \(from) to \(to)")
            }
        }
        for machine in machines {
            #expect(try replay.verify(session, against: machine) == engine.verify(session, against: machine))
        }
        #expect(try replay.exportSession(session) == engine.exportSession(session))
        return points
    }

    @Test func everyExampleReplaysTheSameOverAnotherLog() async throws {
        let fixture = try ReplayFixture(snapshotInterval: 4)
        let sessions = try await fixture.recordAllExamples()
        let machines = try ReplayFixture.exampleMachines()
        let log = try InMemoryTransitionLog(copying: fixture.engine)
        let replay = LogReplay(log: log, registered: machines)
        // The store is a log too: the same replay reads it directly.
        let overStore = LogReplay(log: fixture.engine.store, registered: machines, coder: fixture.engine.store.coder)
        for session in sessions {
            // Against its own machine (clean) and another example's (a divergence to agree on).
            let own = try #require(machines.first { "\($0.definition.name)-1" == session.rawValue })
            let other = try #require(machines.first { $0.definition.name != own.definition.name })
            let reports = try [own, other].map { try replay.verify(session, against: $0) }
            #expect(reports[0].isClean)
            #expect(!reports[1].isClean)
            try expectSameReplay(of: session, engine: fixture.engine, replay: replay, verifyingAgainst: [own, other])
            try expectSameReplay(of: session, engine: fixture.engine, replay: overStore, verifyingAgainst: [own])
        }
    }

    @Test func sessionsWhoseDefinitionsAreOnlyStoredReplayTheSame() async throws {
        let fixture = try ReplayFixture(snapshotInterval: 4)
        let sessions = try await fixture.recordAllExamples()
        let machines = try ReplayFixture.exampleMachines()
        let log = try InMemoryTransitionLog(copying: fixture.engine)
        // Nothing registered: every record is re-run by the definition stored beside the log.
        let replay = LogReplay(log: log)
        for session in sessions {
            let own = try #require(machines.first { "\($0.definition.name)-1" == session.rawValue })
            try expectSameReplay(of: session, engine: fixture.engine, replay: replay, verifyingAgainst: [own])
        }
    }

    @Test(arguments: [MigrationReplayTests.reminders, MigrationReplayTests.counter])
    func aSessionAcrossAMigrationReplaysTheSameAndAsItWasLive(_ pair: MigrationReplayTests.Pair) async throws {
        let (fixture, live) = try await MigrationReplayTests().record(pair)
        defer { fixture.remove() }
        let new = try pair.machine(pair.new)
        let old = try pair.machine(pair.old)
        let engine = try fixture.open(registering: [new])
        defer { engine.close() }
        let session = SessionID("user")
        let log = try InMemoryTransitionLog(copying: engine)
        // The old definition is only stored; the new one registered, then only stored too.
        #expect(log.definitionVersions(of: "flow") == [old.definition.contentVersion, new.definition.contentVersion])
        for replay in [
            LogReplay(log: log, registered: [new], bindings: pair.bindings),
            LogReplay(log: log, bindings: pair.bindings),
        ] {
            let points = try expectSameReplay(
                of: session, engine: engine, bindings: pair.bindings, replay: replay, verifyingAgainst: [new, old])
            for (version, snapshot) in live {
                #expect(points[Int(version)].state == snapshot.state, "version \(version)")
                #expect(points[Int(version)].navigation == snapshot.navigation, "version \(version)")
            }
        }
    }

    @Test func errorsAreTypedAndSayWhat() async throws {
        let (fixture, _) = try await MigrationReplayTests().record(MigrationReplayTests.reminders)
        defer { fixture.remove() }
        let pair = MigrationReplayTests.reminders
        let new = try pair.machine(pair.new)
        let oldVersion = try pair.machine(pair.old).definition.contentVersion
        let engine = try fixture.open(registering: [new])
        defer { engine.close() }
        let log = try InMemoryTransitionLog(copying: engine)
        let session = SessionID("user")
        let head = try #require(try log.sessionInfo(for: session)).headVersion
        let replay = LogReplay(log: log, registered: [new])

        let unknown = SessionID("nobody")
        #expect(throws: EngineError.unknownSession(unknown)) { try replay.history(of: unknown) }
        #expect(throws: EngineError.unknownSession(unknown)) { try replay.cursor(for: unknown) }
        #expect(throws: EngineError.unknownSession(unknown)) { try replay.point(of: unknown, at: 0) }
        #expect(throws: EngineError.unknownSession(unknown)) { try replay.diff(unknown, from: 0, to: 1) }
        #expect(throws: EngineError.unknownSession(unknown)) { try replay.verify(unknown, against: new) }
        #expect(throws: EngineError.unknownSession(unknown)) { try replay.exportSession(unknown) }

        let past = ReplayError.versionOutOfRange(session: session, requested: head + 1, head: head)
        #expect(throws: past) { try replay.point(of: session, at: head + 1) }
        #expect(throws: past) { try replay.diff(session, from: 0, to: head + 1) }
        #expect(try replay.point(of: session, at: head).version == head)

        // A server that never received the old definition: the records written under it cannot
        // be re-run nor archived; their history still reads.
        let missing = LogReplay(log: log.removingDefinition(name: "flow", version: oldVersion), registered: [new])
        #expect(try missing.history(of: session) == engine.history(of: session))
        #expect(throws: ReplayError.missingDefinition(machine: "flow", version: oldVersion)) {
            try missing.point(of: session, at: 1)
        }
        #expect(throws: ReplayError.missingDefinition(machine: "flow", version: oldVersion)) {
            try missing.point(of: session, at: head)
        }
        #expect(throws: SessionArchiveError.missingDefinition(machine: "flow", version: oldVersion)) {
            try missing.exportSession(session)
        }
        // With the old definition registered instead, the stored one is not needed.
        let registered = LogReplay(
            log: log.removingDefinition(name: "flow", version: oldVersion),
            registered: [new, try pair.machine(pair.old)])
        #expect(try registered.point(of: session, at: head) == replay.point(of: session, at: head))
    }
}
