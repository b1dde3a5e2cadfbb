import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// `Engine.checkStore`: snapshots against a replay of their session, checkpoints against the
/// head, beside the store's own checks.
struct EngineStoreCheckTests {
    /// A store with session "screen" at version 10 and snapshots every 3 versions (3, 6, 9),
    /// the navigation projection registered inline.
    private func makeStore(_ fixture: EngineFixture) async throws -> Engine {
        let engine = try fixture.open(registering: [try ExampleMachines.LoadingView.machine()]) {
            $0.durability = .noSync
            $0.projections = [NavigationProjection()]
        }
        let session = try await engine.startSession(id: "screen", machine: "loading-view")
        for index in 0..<9 {
            if index % 2 == 0 {
                try await session.send("loaded", payload: ["title": .string("page \(index)"), "items": []])
            } else {
                try await session.send("reload")
            }
        }
        return engine
    }

    private func snapshot(_ version: UInt64, in engine: Engine) throws -> SessionSnapshot {
        let bytes = try #require(
            try engine.store.read {
                try $0.value(
                    forKey: SessionSnapshot.key(session: SessionID("screen"), version: version), in: .snapshots)
            })
        return try JSONDecoder().decode(SessionSnapshot.self, from: Data(bytes))
    }

    private func putSnapshot(_ snapshot: SessionSnapshot, at version: UInt64, in engine: Engine) throws {
        let bytes = try snapshot.encoded()
        try engine.writableStore.write {
            try $0.put(
                bytes, forKey: SessionSnapshot.key(session: SessionID("screen"), version: version), in: .snapshots)
        }
    }

    @Test func aConsistentStoreChecksEverySnapshotAndCheckpoint() async throws {
        let fixture = try EngineFixture(snapshotInterval: 3)
        defer { fixture.remove() }
        let engine = try await makeStore(fixture)
        defer { engine.close() }
        var stages: [StoreCheckProgress.Stage] = []
        let report = try engine.checkStore { if stages.last != $0.stage { stages.append($0.stage) } }
        #expect(report.isConsistent, "\(report)")
        #expect(report.records == 10)
        #expect(report.sessions == 1)
        #expect(report.snapshots == 3)
        #expect(report.checkpoints == 1)
        #expect(stages == [.log, .sessions, .snapshots])
    }

    @Test func aRecordEnteringAStateItsDefinitionLacksIsReportedWithItsSessionVersionAndState() async throws {
        let fixture = try EngineFixture(snapshotInterval: 3)
        defer { fixture.remove() }
        let engine = try await makeStore(fixture)
        defer { engine.close() }
        #expect(try engine.checkStore().isConsistent)
        // A record written past the engine (a forged or damaged log): every checksum is valid.
        let last = try #require(
            try engine.store.read { try $0.records(of: SessionID("screen"), from: 10, limit: 1).first })
        try engine.writableStore.append(
            [
                TransitionDraft(
                    machine: last.machine, definition: last.definition, event: "loaded", source: last.target,
                    target: ["nowhere"])
            ], to: SessionID("screen"), expectedVersion: .exact(10))
        let report = try engine.checkStore()
        #expect(report.problem?.location == "log sequence 11", "\(report)")
        #expect(
            report.problem?.reason.contains("session 'screen' version 11 enters state 'nowhere'") == true, "\(report)")
    }

    @Test func aSnapshotThatDiffersFromTheReplayIsReported() async throws {
        let fixture = try EngineFixture(snapshotInterval: 3)
        defer { fixture.remove() }
        let engine = try await makeStore(fixture)
        defer { engine.close() }
        var damaged = try snapshot(6, in: engine)
        damaged.state.data["ready"] = ["title": "not what happened"]
        try putSnapshot(damaged, at: 6, in: engine)
        let problem = try #require(try engine.checkStore().problem)
        #expect(problem.location == "snapshot of 'screen' at version 6")
        #expect(problem.reason.contains("does not match a replay"))
    }

    @Test func aSnapshotUnderAnotherVersionsKeyOrUndecodableIsReported() async throws {
        let fixture = try EngineFixture(snapshotInterval: 3)
        defer { fixture.remove() }
        let engine = try await makeStore(fixture)
        defer { engine.close() }
        try putSnapshot(try snapshot(3, in: engine), at: 6, in: engine)
        var problem = try #require(try engine.checkStore().problem)
        #expect(problem.location == "snapshot of 'screen' at version 6")
        #expect(problem.reason == "it holds version 3")
        try engine.writableStore.write {
            try $0.put(
                Array("{not json".utf8), forKey: SessionSnapshot.key(session: SessionID("screen"), version: 6),
                in: .snapshots)
        }
        problem = try #require(try engine.checkStore().problem)
        #expect(problem.location == "snapshot of 'screen' at version 6")
        #expect(problem.reason.hasPrefix("it does not decode"))
    }

    @Test func aCheckpointBeyondTheHeadIsReported() async throws {
        let fixture = try EngineFixture(snapshotInterval: 3)
        defer { fixture.remove() }
        let engine = try await makeStore(fixture)
        defer { engine.close() }
        let name = try #require(engine.registeredProjections.first)
        let status = ProjectionStatus(name: name, version: 1, checkpoint: 99)
        try engine.writableStore.write {
            try $0.put(CheckpointCodec.encode(status), forKey: Array(name.utf8), in: .checkpoints)
        }
        let problem = try #require(try engine.checkStore().problem)
        #expect(problem.location == "checkpoint of projection '\(name)'")
        #expect(problem.reason.contains("sequence 99, beyond the log's head at sequence 10"))
    }

    @Test func aReadOnlyEngineReadsWithoutWriting() async throws {
        let fixture = try EngineFixture(snapshotInterval: 3)
        defer { fixture.remove() }
        do {
            let engine = try await makeStore(fixture)
            engine.close()
        }
        let dataFile = fixture.directory.path + "/data.mdb"
        let before = try Data(contentsOf: URL(fileURLWithPath: dataFile))
        let engine = try fixture.open(registering: [try ExampleMachines.Onboarding.machine()]) {
            $0.readOnly = true
            $0.projections = [NavigationProjection()]
        }
        defer { engine.close() }
        #expect(try engine.sessions().map(\.session.rawValue) == ["screen"])
        #expect(try engine.checkStore().isConsistent)
        await #expect(throws: LMDBError.self) { _ = try await engine.startSession(id: "new", machine: "onboarding") }
        // Neither the onboarding definition nor anything else was written.
        #expect(try Data(contentsOf: URL(fileURLWithPath: dataFile)) == before)
    }
}
