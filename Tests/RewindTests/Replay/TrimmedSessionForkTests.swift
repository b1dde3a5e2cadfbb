import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// `Engine.fork` of a session whose history was trimmed: at or after the base the fork begins at
/// the same base and resumes as a fork of the untrimmed session does; below it, a typed refusal.
struct TrimmedSessionForkTests {
    @Test(arguments: [UInt64(0), 10])
    func aForkAfterTheBaseBeginsAtItAndResumesAsAForkOfTheWholeSessionDoes(interval: UInt64) async throws {
        let fixture = try EngineFixture(snapshotInterval: interval)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        _ = try await HistoryTrimTests.longSession("long", records: 100, in: engine)
        // The twin: a fork of the whole session, before the trim.
        try await engine.fork("long", at: 85, as: "twin")
        try engine.trimHistory(of: "long", before: 70)

        let info = try await engine.fork("long", at: 85, as: "branch")
        #expect(info.baseVersion == 70)
        #expect(info.headVersion == 85)
        #expect(info.recordCount == 16)
        #expect(info.origin == RecordOrigin(session: "long", version: 85))
        let original = try engine.store.read { try $0.records(of: SessionID("long")) }.filter { $0.version <= 85 }
        let branch = try engine.store.read { try $0.records(of: SessionID("branch")) }
        #expect(branch.map(\.version) == Array(70...85))
        #expect(branch.dropFirst().map(\.transition) == original.dropFirst().map(\.transition))
        #expect(branch.first?.event == original.first?.event)
        #expect(try engine.checkStore().isConsistent)

        #expect(throws: ReplayError.historyTrimmed(session: "branch", requested: 10, firstVersion: 70)) {
            try engine.replay().point(of: "branch", at: 10)
        }
        #expect(try engine.replay().cursor(for: "branch").point.version == 70)
        let resumed = try engine.session("branch")
        #expect(resumed.version == 85)
        try await HistoryTrimTests.expectSameCourse(resumed, as: try engine.session("twin"))
        // The fork's archive begins at the base too.
        let copy = try await engine.importSession(try engine.exportSession("branch"), as: "copy")
        #expect(copy.baseVersion == 70)
        #expect(try engine.checkStore().isConsistent)
    }

    @Test func aForkAtTheBaseHoldsItAloneAndBelowItIsRefusedTyped() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        let live = try await HistoryTrimTests.longSession("long", records: 60, in: engine)
        try engine.trimHistory(of: "long", before: 60)

        let atBase = try await engine.fork("long", at: 60, as: "atBase")
        #expect(atBase.baseVersion == 60)
        #expect(atBase.recordCount == 1)
        #expect(try engine.session("atBase").snapshot.state == live.snapshot.state)

        await #expect(throws: ReplayError.historyTrimmed(session: "long", requested: 59, firstVersion: 60)) {
            try await engine.fork("long", at: 59, as: "below")
        }
        #expect(try engine.store.sessionInfo(for: "below") == nil)
        #expect(try engine.checkStore().isConsistent)
    }
}
