import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Snapshots are written every N versions, in the same transaction as the record of that version.
struct SnapshotTests {
    func storedSnapshots(of session: String, in engine: Engine) throws -> [UInt64: SessionSnapshot] {
        let prefix = StoreKey.compoundPrefix(session)
        var found: [UInt64: SessionSnapshot] = [:]
        try engine.store.read { transaction in
            try transaction.forEach(in: .snapshots) { key, value in
                guard key.starts(with: prefix), let split = StoreKey.splitCompound(key) else { return .next }
                found[split.number] = try JSONDecoder().decode(SessionSnapshot.self, from: Data(value))
                return .next
            }
        }
        return found
    }

    @Test(arguments: [1, 3, 4] as [UInt64])
    func aSnapshotIsWrittenEveryIntervalVersionsAndEqualsTheLiveSession(interval: UInt64) async throws {
        let fixture = try EngineFixture(snapshotInterval: interval)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.LoadingView.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "screen", machine: "loading-view")
        var live: [UInt64: SessionSnapshot] = [1: session.snapshot]
        for index in 0..<10 {
            if index % 2 == 0 {
                try await session.send("loaded", payload: ["title": .string("page \(index)"), "items": []])
            } else {
                try await session.send("reload")
            }
            live[session.version] = session.snapshot
        }
        let stored = try storedSnapshots(of: "screen", in: engine)
        let expectedVersions = (1...session.version).filter { $0 % interval == 0 }
        #expect(stored.keys.sorted() == expectedVersions)
        for version in expectedVersions {
            #expect(stored[version] == live[version], "version \(version)")
        }
    }

    @Test func noSnapshotIsWrittenWhenTheIntervalIsZero() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        for event in ["launch", "start", "loggedIn"] { try await session.send(event) }
        #expect(try storedSnapshots(of: "user", in: engine).isEmpty)
    }

    @Test func aRejectedAppendWritesNoSnapshot() async throws {
        // Engine B's session is stale: its append of version 2 is rejected, and the snapshot of
        // version 2 in the store is engine A's, written with A's record.
        let fixture = try EngineFixture(snapshotInterval: 2)
        defer { fixture.remove() }
        let machine = try ExampleMachines.LoadingView.machine()
        let engineA = try fixture.open(registering: [machine])
        defer { engineA.close() }
        let engineB = try fixture.open(registering: [machine])
        defer { engineB.close() }
        let sessionA = try await engineA.startSession(id: "screen", machine: "loading-view")
        let sessionB = try engineB.session("screen")
        try await sessionA.send("failed", payload: "from A")
        await #expect(throws: StoreError.self) { try await sessionB.send("loaded", payload: ["title": "from B"]) }
        let stored = try storedSnapshots(of: "screen", in: engineA)
        #expect(stored.keys.sorted() == [2])
        #expect(stored[2] == sessionA.snapshot)
        #expect(stored[2]?.state.data["error"] == "from A")
    }

    @Test func aFailedCommitWritesNeitherTheRecordNorItsSnapshot() async throws {
        let fixture = try EngineFixture(snapshotInterval: 2)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        engine.commits.injectFaults { _ in CancellationError() }
        await #expect(throws: CancellationError.self) { try await session.send("launch") }
        #expect(try storedSnapshots(of: "user", in: engine).isEmpty)
        #expect(try engine.store.headSequence() == 1)
        engine.commits.injectFaults(nil)
        try await session.send("launch")
        #expect(try storedSnapshots(of: "user", in: engine).keys.sorted() == [2])
    }
}
