import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

struct ScreenFlowProjectionTests {
    /// Onboarding (initial → greeting → login → home) with drop-offs: two users get home, one
    /// stops at login, one at greeting, one never launches.
    @Test func onboardingFunnelCountsWhoReachedEachScreenAndWhereTheyStopped() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(in: directory, projections: [ScreenFlowProjection()])
        defer { engine.close() }
        for (id, steps) in [("ann", 3), ("bob", 3), ("cat", 2), ("dan", 1), ("eve", 0)] {
            try await ProjectionFixtures.onboard(engine, id: id, steps: steps)
        }
        let kanji = try engine.makeSession(id: SessionID("kim"), machine: "kanji")
        try await kanji.enter("all")

        let funnel = try engine.screenFlows.funnel(machine: "onboarding")
        #expect(funnel.sessions == 5)
        #expect(funnel.reached == ["initial": 5, "greeting": 4, "login": 3, "home": 2])
        #expect(funnel.stoppedAt == ["initial": 1, "greeting": 1, "login": 1, "home": 2])
        #expect(funnel.steps(along: ["initial", "greeting", "login", "home"]).map(\.reached) == [5, 4, 3, 2])
        #expect(funnel.steps(along: ["initial", "greeting", "login", "home"]).map(\.stopped) == [1, 1, 1, 2])

        let flows = engine.screenFlows
        #expect(try flows.sessions(inState: "login").map(\.rawValue) == ["cat"])
        #expect(try flows.sessions(inState: "home", machine: "onboarding").map(\.rawValue) == ["ann", "bob"])
        #expect(try flows.sessions(inState: "home", machine: "kanji").isEmpty)
        #expect(try flows.sessions(inState: "all").map(\.rawValue) == ["kim"])
        #expect(try flows.funnel(machine: "kanji").sessions == 1)
    }

    @Test func aSessionsFlowIsItsLastRecord() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(in: directory, projections: [ScreenFlowProjection()])
        defer { engine.close() }
        let session = try engine.makeSession(id: SessionID("reader"), machine: "kanji")
        for move in ProjectionFixtures.kanjiMoves.prefix(2) {
            try await session.enter(move.state, data: move.data)
        }
        let id = SessionID("reader")
        let flow = try #require(try engine.screenFlows.flow(of: id))
        let record = try #require(try engine.store.records(of: id).last)
        #expect(flow.machine == "kanji")
        #expect(flow.configuration == ["detail"] && flow.configuration == record.target)
        #expect(flow.lastEvent == "enter" && flow.version == 2 && flow.updated == record.timestamp)
        #expect(flow.reached == ["all", "detail"])
        #expect(try engine.screenFlows.stateData(of: id) == ["detail": ProjectionFixtures.kanjiMoves[1].data])
        #expect(try engine.screenFlows.flow(of: SessionID("nobody")) == nil)

        try await session.enter("all")
        #expect(try engine.screenFlows.stateData(of: id) == .null)
        #expect(try engine.screenFlows.flow(of: id)?.reached == ["all", "detail"])
    }

    @Test func theBinaryEncodingRoundTripsAndRejectsTruncatedBytes() throws {
        let projection = ScreenFlowProjection()
        let flow = ScreenFlowProjection.Flow(
            machine: "m", configuration: ["a", "a.b"], stateData: [1, 2, 3], lastEvent: "go",
            updated: Timestamp(microsecondsSince1970: -42), version: 300, reached: ["a", "a.b", "c"])
        var bytes: [UInt8] = []
        projection.encode(flow, into: &bytes)
        #expect(try bytes.withUnsafeBytes { try projection.decode($0) } == flow)
        for length in [0, bytes.count / 2, bytes.count - 1] {
            #expect(throws: (any Error).self) { try bytes.prefix(length).withUnsafeBytes { try projection.decode($0) } }
        }
        #expect(throws: (any Error).self) { try (bytes + [0]).withUnsafeBytes { try projection.decode($0) } }
    }
}
