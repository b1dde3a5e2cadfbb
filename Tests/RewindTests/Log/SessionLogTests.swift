import Foundation
import Rewind
@_spi(Internals) import RewindStore
import RewindTestSupport
import Testing

/// ``SessionLog/load(_:from:)`` — how a log read asynchronously (a fleet server's PostgreSQL)
/// reaches the synchronous replay — over a device's store seen through the asynchronous reader
/// interface: a whole session and a trimmed one (from its base, with the base's snapshot) replay
/// exactly as the engine replays them, and a trimmed session without its base is a typed error.
struct SessionLogTests {
    /// A device store that keeps no bases: the store's own asynchronous reader, without
    /// ``AsyncTransitionLogReader/baseSnapshot(of:)``.
    struct ReaderWithoutBases: AsyncTransitionLogReader {
        let store: TransitionStoreReader

        func headSequence() async throws -> UInt64 { try store.headSequence() }
        func sessionInfo(for session: SessionID) async throws -> SessionInfo? { try store.sessionInfo(for: session) }
        func records(of session: SessionID, fromVersion version: UInt64, limit: Int) async throws -> [TransitionRecord]
        {
            try await store.records(of: session, fromVersion: version, limit: limit)
        }
        func records(fromSequence sequence: UInt64, limit: Int) async throws -> [TransitionRecord] {
            try await store.records(fromSequence: sequence, limit: limit)
        }
        func storedDefinitionDocument(name: String, version: String) async throws -> [UInt8]? {
            try await store.storedDefinitionDocument(name: name, version: version)
        }
    }

    /// Expects the loaded log to replay `session` as `engine` does: history, the point at every
    /// version it holds, diffs and the exported archive.
    private func expectSameReplay(of session: SessionID, loaded: SessionLog, engine: Engine) throws {
        let replay = LogReplay(log: loaded)
        let info = try #require(try engine.store.sessionInfo(for: session))
        #expect(loaded.info == info)
        #expect(try replay.history(of: session) == engine.history(of: session))
        var cursor = try engine.replayCursor(for: session)
        for version in info.firstVersion...info.headVersion {
            #expect(
                try replay.point(of: session, at: version) == cursor.seek(to: version),
                "\(session) at version \(version)")
        }
        let middle = info.firstVersion + (info.headVersion - info.firstVersion) / 2
        #expect(
            try replay.diff(session, from: info.firstVersion, to: middle)
                == engine.diff(session, from: info.firstVersion, to: middle))
        #expect(try replay.exportSession(session) == engine.exportSession(session))
    }

    @Test func aWholeSessionLoadsFromVersionOneAndReplaysAsTheEngineDoes() async throws {
        let fixture = try EngineFixture(snapshotInterval: 7)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        _ = try await HistoryTrimTests.longSession("whole", records: 40, in: engine)

        let loaded = try #require(try await SessionLog.load("whole", from: engine.store))
        #expect(loaded.base == nil)
        #expect(loaded.records.map(\.version) == Array(1...40))
        try expectSameReplay(of: "whole", loaded: loaded, engine: engine)
    }

    @Test(arguments: [UInt64(0), 7])
    func aTrimmedSessionLoadsFromItsBaseAndReplaysAsTheEngineDoes(interval: UInt64) async throws {
        let fixture = try EngineFixture(snapshotInterval: interval)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        _ = try await HistoryTrimTests.longSession("long", records: 60, in: engine)
        try engine.trimHistory(of: "long", before: 38)

        let loaded = try #require(try await SessionLog.load("long", from: engine.store))
        #expect(loaded.info.baseVersion == 38)
        #expect(loaded.records.map(\.version) == Array(38...60))
        let base = try #require(loaded.base)
        #expect(base.version == 38)
        #expect(base == (try engine.store.read { try $0.latestSnapshot(of: "long", atOrBefore: 38) }))
        // Below its base the loaded log answers as the engine does: history begins at the base.
        #expect(throws: ReplayError.historyTrimmed(session: "long", requested: 20, firstVersion: 38)) {
            try LogReplay(log: loaded).point(of: "long", at: 20)
        }
        try expectSameReplay(of: "long", loaded: loaded, engine: engine)
    }

    @Test func aTrimmedSessionWithoutItsBaseIsATypedError() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        _ = try await HistoryTrimTests.longSession("long", records: 20, in: engine)
        try engine.trimHistory(of: "long", before: 10)

        do {
            _ = try await SessionLog.load("long", from: ReaderWithoutBases(store: engine.store))
            Issue.record("a trimmed session loaded without its base")
        } catch ReplayError.incompleteSession(let session, let reason) {
            #expect(session == "long")
            #expect(reason.contains("begins at version 10"), "\(reason)")
        }
    }
}
