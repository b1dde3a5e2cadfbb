import Rewind
import RewindTestSupport
import Testing

@Suite("Fork")
struct SessionForkTests {
    @Test func aForkCopiesTheRecordsUpToItsPointAndNamesItsOrigin() async throws {
        let fixture = try ReplayFixture(snapshotInterval: 2)
        try await fixture.record("browser", as: "b")
        let engine = fixture.engine
        let original = SessionID("b")
        let fork = SessionID("b-fork")
        let info = try await engine.fork(original, at: 5, as: fork)
        #expect(info.headVersion == 5)
        #expect(info.origin == RecordOrigin(session: original, version: 5))
        #expect(info.machine == "browser")

        let (originals, copies) = try engine.store.read { transaction in
            (try transaction.records(of: original, versions: 1...5), try transaction.records(of: fork))
        }
        #expect(copies.count == 5)
        #expect(copies[0].origin == RecordOrigin(session: original, version: 5))
        #expect(copies.dropFirst().allSatisfy { $0.origin == nil })
        for (copy, source) in zip(copies, originals) {
            var expected = source.transition
            expected.origin = copy.version == 1 ? RecordOrigin(session: original, version: 5) : nil
            #expect(copy.transition == expected)
            #expect(copy.version == source.version && copy.session == fork)
        }

        // The fork replays to the original's point, and its snapshots were copied.
        var forkCursor = try engine.replayCursor(for: fork)
        var originalCursor = try engine.replayCursor(for: original)
        for version in UInt64(0)...5 {
            let copied = try forkCursor.seek(to: version)
            let source = try originalCursor.seek(to: version)
            #expect(copied.state == source.state && copied.navigation == source.navigation)
        }
        let snapshots = try engine.store.read { transaction in
            try [2, 4].map { try transaction.value(forKey: StoreKey.compound("b-fork", $0), in: .snapshots) }
        }
        #expect(snapshots.allSatisfy { $0 != nil })
    }

    @Test func laterWritesToTheForkOrTheOriginalDoNotTouchTheOther() async throws {
        let fixture = try ReplayFixture()
        let live = try await fixture.record("loading-view", as: "v")
        let engine = fixture.engine
        let before = try engine.store.read { try $0.records(of: live.id) }
        try await engine.fork(live.id, at: 2, as: SessionID("v-fork"))

        let forked = try engine.session(SessionID("v-fork"))
        #expect(forked.version == 2 && forked.configuration == ["ready"])
        try await forked.send("reload")
        try await forked.send("failed", payload: "other")
        try await live.send("reload")

        let (original, copy) = try engine.store.read { transaction in
            (try transaction.records(of: live.id), try transaction.records(of: SessionID("v-fork")))
        }
        #expect(Array(original.prefix(before.count)) == before)
        #expect(original.count == before.count + 1)
        #expect(copy.count == 4)
        #expect(copy[3].payload != original[3].payload)
        #expect(try engine.store.sessionInfo(for: live.id)?.headVersion == UInt64(before.count + 1))
    }

    @Test func forkingToAnExistingSessionOrOutsideTheVersionsWritesNothing() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("onboarding", as: "o")
        try await fixture.record("statekit", as: "s")
        let engine = fixture.engine
        let head = try engine.store.headSequence()
        await #expect(throws: EngineError.sessionExists(SessionID("s"))) {
            try await engine.fork(SessionID("o"), at: 2, as: SessionID("s"))
        }
        await #expect(throws: ReplayError.versionOutOfRange(session: SessionID("o"), requested: 0, head: 4)) {
            try await engine.fork(SessionID("o"), at: 0, as: SessionID("x"))
        }
        await #expect(throws: ReplayError.versionOutOfRange(session: SessionID("o"), requested: 9, head: 4)) {
            try await engine.fork(SessionID("o"), at: 9, as: SessionID("x"))
        }
        await #expect(throws: EngineError.unknownSession(SessionID("nobody"))) {
            try await engine.fork(SessionID("nobody"), at: 1, as: SessionID("x"))
        }
        #expect(try engine.store.headSequence() == head)
        #expect(try engine.store.sessionInfo(for: SessionID("x")) == nil)
    }
}
