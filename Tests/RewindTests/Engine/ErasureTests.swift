import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Counts events per machine: a projection whose keys are not session ids, so erasing a session
/// must re-fold the states its records touched.
private struct EventsPerMachine: Projection {
    var name: String { "events-per-machine" }
    var version: UInt32 { 1 }
    func key(for record: TransitionRecord) -> String? { record.machine }
    func apply(_ record: TransitionRecord, to state: inout [String: Int]?) {
        state = state ?? [:]
        state?[record.event, default: 0] += 1
    }
}

/// `Engine.erase`: a session's records, snapshots, index and projection contributions go in one
/// transaction; its id is refused afterwards everywhere; the rest of the store is untouched.
struct ErasureTests {
    typealias Onboarding = ExampleMachines.Onboarding

    /// Three sessions, interleaved, with contexts naming their users.
    private func populate(_ engine: Engine) async throws {
        let sessions = [
            try await engine.startSession(id: "user-42/onboarding", machine: "onboarding", context: ["userID": 42]),
            try await engine.startSession(id: "user-7/onboarding", machine: "onboarding", context: ["userID": 7]),
            try await engine.startSession(id: "user-42/second", machine: "onboarding", context: ["userID": 42]),
        ]
        for event in [Onboarding.Event.launch, .start, .loggedIn] {
            for session in sessions { try await session.send(event) }
        }
    }

    @Test func erasingASessionRemovesItsRecordsAndKeepsEveryOtherSession() async throws {
        let fixture = try EngineFixture(snapshotInterval: 2)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        try await populate(engine)
        let otherBefore = try engine.store.read { try $0.records(of: SessionID("user-7/onboarding")) }
        let erasedSequences = try engine.store.read { try $0.records(of: SessionID("user-42/onboarding")) }.map(
            \.sequence)

        let report = try engine.erase(SessionID("user-42/onboarding"))

        #expect(report.sessions == [SessionID("user-42/onboarding")])
        #expect(report.records == 4)
        #expect(try engine.store.sessionInfo(for: SessionID("user-42/onboarding")) == nil)
        try engine.store.read { transaction in
            for sequence in erasedSequences { #expect(try transaction.record(at: sequence) == nil) }
            #expect(try transaction.records(of: SessionID("user-7/onboarding")) == otherBefore)
            var snapshots: [[UInt8]] = []
            try transaction.forEach(in: .snapshots) { key, _ in
                snapshots.append(Array(key))
                return .next
            }
            #expect(!snapshots.contains { $0.starts(with: Array("user-42/onboarding".utf8)) })
            #expect(snapshots.contains { $0.starts(with: Array("user-7/onboarding".utf8)) })
            let notices = try transaction.erasureNotices()
            #expect(notices.count == 1)
            #expect(notices.first?.kind == .sessions)
            #expect(notices.first.map { $0.ranges.flatMap { Array($0) } } == erasedSequences)
        }
        let check = try engine.checkStore()
        #expect(check.isConsistent, "\(check)")
        #expect(check.records == 8)
        #expect(check.erased == 4)
        // The others resume and go on.
        let other = try engine.session("user-7/onboarding")
        #expect(other.version == 4)
    }

    @Test func anErasedSessionIsRefusedEverywhereWithWhenItWasErased() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        try await populate(engine)
        let id = SessionID("user-42/onboarding")
        let report = try engine.erase(id)

        func expectErased(_ what: String, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("\(what) did not throw")
            } catch EngineError.sessionErased(let session, let erasure) {
                #expect(session == id, "\(what)")
                #expect(erasure.erasedAt == report.erasedAt, "\(what)")
                #expect(erasure.reason == .requested, "\(what)")
            } catch {
                Issue.record("\(what) threw \(error)")
            }
        }
        expectErased("resume") { _ = try engine.session(id) }
        expectErased("a new session with the id") { _ = try engine.makeSession(id: id, machine: "onboarding") }
        expectErased("replay") { _ = try engine.logReplay().cursor(for: id) }
        expectErased("history") { _ = try engine.history(of: id) }
        expectErased("export") { _ = try engine.exportSession(id) }
        expectErased("verify") { _ = try engine.verify(id, against: try Onboarding.machine()) }
        await #expect(
            throws: EngineError.sessionErased(id, SessionErasure(erasedAt: report.erasedAt, reason: .requested))
        ) {
            _ = try await engine.fork(id, at: 1, as: "copy")
        }
        await #expect(
            throws: EngineError.sessionErased(id, SessionErasure(erasedAt: report.erasedAt, reason: .requested))
        ) {
            _ = try await engine.openSession(id: id, machine: "onboarding")
        }
        #expect(
            String(
                describing: EngineError.sessionErased(id, SessionErasure(erasedAt: report.erasedAt, reason: .requested))
            )
            .contains("was erased at"))
        // Erasing it again does nothing; an id the store never held is an unknown session.
        #expect(try engine.erase(id).sessions.isEmpty)
        #expect(throws: EngineError.unknownSession(SessionID("nobody"))) { try engine.erase(SessionID("nobody")) }
    }

    @Test func anOpenSessionOfTheErasedIdFailsItsNextSendTyped() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "open", machine: "onboarding")
        try await session.send(Onboarding.Event.launch)
        try engine.erase(SessionID("open"))
        await #expect {
            try await session.send(Onboarding.Event.start)
        } throws: { error in
            guard case StoreError.sessionErased(let erased, _) = error else { return false }
            return erased == SessionID("open")
        }
        #expect(try engine.store.sessionInfo(for: SessionID("open")) == nil)
    }

    @Test func predicatesSelectByContextAndByIdPrefix() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        try await populate(engine)
        let byContext = try engine.erase(where: .context("userID", equals: 42))
        #expect(byContext.sessions == [SessionID("user-42/onboarding"), SessionID("user-42/second")])
        #expect(try engine.sessions().map(\.session) == [SessionID("user-7/onboarding")])
        #expect(try engine.erase(where: .idPrefix("user-42/")).sessions.isEmpty)
        #expect(try engine.erase(where: .idPrefix("user-7/")).sessions == [SessionID("user-7/onboarding")])
        #expect(try engine.sessions().isEmpty)
        #expect(try engine.checkStore().isConsistent)
    }

    @Test func projectionStatesAfterAnErasureEqualARebuildFromTheRemainingLog() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        try engine.register(EventsPerMachine())
        try engine.register(ScreenFlowProjection())
        try engine.register(NavigationProjection())
        try await populate(engine)
        let report = try engine.erase(where: .context("userID", equals: 42))
        #expect(report.refoldedProjections == ["events-per-machine"])

        let counts = try engine.reader(for: EventsPerMachine()).states()
        let flows = try engine.reader(for: ScreenFlowProjection()).states()
        let stacks = try engine.reader(for: NavigationProjection()).states()
        #expect(counts["onboarding"]?["launch"] == 1)
        #expect(Set(flows.keys) == ["user-7/onboarding"])
        for name in ["events-per-machine", ScreenFlowProjection().name, NavigationProjection().name] {
            try engine.rebuildProjection(named: name)
        }
        #expect(try engine.reader(for: EventsPerMachine()).states() == counts)
        #expect(try engine.reader(for: ScreenFlowProjection()).states() == flows)
        #expect(try engine.reader(for: NavigationProjection()).states() == stacks)
    }

    @Test func theNewestRecordsErasedKeepTheirNumbersAcrossAReopen() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        do {
            let engine = try fixture.open(registering: [try Onboarding.machine()])
            defer { engine.close() }
            try await populate(engine)
            let last = try engine.store.read { try $0.records(of: SessionID("user-42/second")) }.last?.sequence
            #expect(last == 12)
            try engine.erase(SessionID("user-42/second"))
            #expect(try engine.store.headSequence() == 12)
        }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "after", machine: "onboarding")
        #expect(try engine.store.read { try $0.records(of: SessionID("after")) }.first?.sequence == 13)
        _ = session
        #expect(try engine.store.read { try $0.erasedRanges() } == [3...3, 6...6, 9...9, 12...12])
        #expect(try engine.checkStore().isConsistent)
    }

    @Test func adjacentErasedRangesMerge() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        try await populate(engine)
        try engine.erase(SessionID("user-42/onboarding"))
        try engine.erase(SessionID("user-42/second"))
        #expect(try engine.store.read { try $0.erasedRanges() } == [1...1, 3...4, 6...7, 9...10, 12...12])
        try engine.erase(SessionID("user-7/onboarding"))
        #expect(try engine.store.read { try $0.erasedRanges() } == [1...12])
        #expect(try engine.store.read { try $0.erasedRanges(from: 5) } == [1...12])
        #expect(try engine.store.read { try $0.erasureNotices(after: 1) }.map(\.number) == [2, 3])
        #expect(try engine.checkStore().isConsistent)
    }

    @Test func erasingWhileOtherSessionsSendLosesNothingOfTheirs() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        for index in 0..<20 {
            let session = try await engine.startSession(id: SessionID("doomed-\(index)"), machine: "onboarding")
            try await session.send(Onboarding.Event.launch)
        }
        let acknowledged = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                group.addTask {
                    var sent = 0
                    for round in 0..<10 {
                        let session = try await engine.startSession(
                            id: SessionID("kept-\(index)-\(round)"), machine: "onboarding")
                        sent += 1
                        for event in [Onboarding.Event.launch, .start, .loggedIn] {
                            try await session.send(event)
                            sent += 1
                        }
                    }
                    return sent
                }
            }
            group.addTask {
                for index in 0..<20 { try engine.erase(SessionID("doomed-\(index)")) }
                return 0
            }
            var total = 0
            for try await sent in group { total += sent }
            return total
        }
        #expect(acknowledged == 8 * 10 * 4)
        for index in 0..<8 {
            for round in 0..<10 {
                #expect(try engine.store.sessionInfo(for: SessionID("kept-\(index)-\(round)"))?.headVersion == 4)
            }
        }
        #expect(try engine.sessions().count == 80)
        let check = try engine.checkStore()
        #expect(check.isConsistent, "\(check)")
        #expect(check.erased == 40)
    }
}
