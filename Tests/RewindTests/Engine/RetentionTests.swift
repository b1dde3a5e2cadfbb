import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// `Engine.applyRetention`: whole sessions go, oldest last record first, in bounded passes;
/// nothing a fleet server has not acknowledged goes; the rest resumes exactly.
struct RetentionTests {
    typealias Onboarding = ExampleMachines.Onboarding

    /// A clock the test moves: each session's records get the time it says.
    final class TestClock: Sendable {
        let now = LockedBox(Timestamp(microsecondsSince1970: 1_800_000_000_000_000))
        func advance(days: Int64) { now.withValue { $0.microsecondsSince1970 += days * 86_400_000_000 } }
    }

    /// The ids `day-N` for `range`.
    private func days(_ range: Range<Int>) throws -> [SessionID] {
        try range.map { try SessionID("day-\($0)") }
    }

    private func open(_ fixture: EngineFixture, clock: TestClock, retention: RetentionPolicy) throws -> Engine {
        try fixture.open(registering: [try Onboarding.machine()]) { configuration in
            configuration.durability = .noSync
            configuration.clock = { clock.now.current }
            configuration.retention = retention
        }
    }

    /// Sessions `day-0` … `day-(count-1)`, one a day, each with its four records on its day.
    private func populate(_ engine: Engine, clock: TestClock, days count: Int) async throws {
        for day in 0..<count {
            let session = try await engine.startSession(id: SessionID("day-\(day)"), machine: "onboarding")
            for event in Onboarding.Event.allCases { try await session.send(event) }
            clock.advance(days: 1)
        }
    }

    @Test func sessionsOlderThanTheMaximumAgeGoInBoundedPassesOldestFirst() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let clock = TestClock()
        let engine = try open(
            fixture, clock: clock, retention: RetentionPolicy(maximumAge: .seconds(5 * 86_400), sessionsPerPass: 2))
        defer { engine.close() }
        try await populate(engine, clock: clock, days: 10)  // now: day 10
        let kept = try await engine.startSession(id: "today", machine: "onboarding")
        try await kept.send(Onboarding.Event.launch)

        let report = try engine.applyRetention(now: clock.now.current)
        // Last records on days 0…9: older than 5 days at day 10 are days 0…4.
        #expect(try report.sessions == days(0..<5))
        #expect(report.passes == 3)  // 2 + 2 + 1
        #expect(report.records == 20)
        #expect(try engine.sessions().map(\.session).sorted() == (try days(5..<10) + ["today"]).sorted())
        // Erased by retention: the tombstone says so.
        #expect(
            throws: EngineError.sessionErased(
                SessionID("day-0"),
                SessionErasure(
                    erasedAt: try #require(try engine.store.read { try $0.erasure(of: "day-0") }).erasedAt,
                    reason: .retention))
        ) {
            _ = try engine.session("day-0")
        }
        // A second run finds nothing more; the rest resumes as it was.
        #expect(try engine.applyRetention(now: clock.now.current).sessions.isEmpty)
        #expect(try engine.session("day-7").version == 4)
        #expect(try engine.checkStore().isConsistent)
    }

    @Test func theMaximumSessionCountKeepsTheNewest() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let clock = TestClock()
        let engine = try open(fixture, clock: clock, retention: RetentionPolicy(maximumSessions: 3))
        defer { engine.close() }
        try await populate(engine, clock: clock, days: 8)
        let report = try engine.applyRetention(now: clock.now.current)
        #expect(try report.sessions == days(0..<5))
        #expect(try engine.sessions().map(\.session).sorted() == [SessionID("day-5"), "day-6", "day-7"])
    }

    @Test func theLiveSizeLimitDropsOldSessionsUntilTheStoreFits() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let clock = TestClock()
        do {
            let engine = try open(fixture, clock: clock, retention: .keepEverything)
            defer { engine.close() }
            try await populate(engine, clock: clock, days: 200)
        }
        let full = try fixture.open(registering: [try Onboarding.machine()]).store.read { try $0.liveBytes() }
        let limit = full / 2
        let engine = try open(fixture, clock: clock, retention: RetentionPolicy(maximumLiveBytes: limit))
        defer { engine.close() }
        let report = try engine.applyRetention(now: clock.now.current)
        #expect(!report.sessions.isEmpty)
        #expect(report.sessions.first == SessionID("day-0"))
        #expect(try engine.store.read { try $0.liveBytes() } <= limit)
        #expect(try engine.sessions().contains { $0.session == SessionID("day-199") })
    }

    @Test func sessionsAFleetServerHasNotAcknowledgedStay() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let clock = TestClock()
        let engine = try open(fixture, clock: clock, retention: RetentionPolicy(maximumAge: .seconds(86_400)))
        defer { engine.close() }
        try await populate(engine, clock: clock, days: 6)
        // The server acknowledged the log up to (not including) day-3's first record.
        let firstOfDay3 = try #require(try engine.store.read { try $0.records(of: SessionID("day-3")) }.first?.sequence)
        try engine.writableStore.write { try $0.setUploadCheckpoint(firstOfDay3, for: "https://fleet.example") }
        let report = try engine.applyRetention(now: clock.now.current)
        #expect(report.sessions == [SessionID("day-0"), "day-1", "day-2"])
        #expect(report.keptUnacknowledged == 2)  // day-3 and day-4 are old enough but not uploaded
        #expect(try engine.sessions().count == 3)

        // A destination that must acknowledge but never uploaded keeps everything.
        let strict = try open(
            fixture, clock: clock,
            retention: RetentionPolicy(
                maximumAge: .seconds(1), requiredUploadDestinations: ["https://other.example"]))
        defer { strict.close() }
        #expect(try strict.applyRetention(now: clock.now.current).sessions.isEmpty)
    }

    @Test func sendsGoOnWhileRetentionRuns() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let clock = TestClock()
        let engine = try open(
            fixture, clock: clock, retention: RetentionPolicy(maximumAge: .seconds(86_400), sessionsPerPass: 3))
        defer { engine.close() }
        try await populate(engine, clock: clock, days: 40)
        let now = clock.now.current
        let sent = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                var sent = 0
                for index in 0..<20 {
                    let session = try await engine.startSession(id: SessionID("new-\(index)"), machine: "onboarding")
                    for event in Onboarding.Event.allCases { try await session.send(event) }
                    sent += 4
                }
                return sent
            }
            group.addTask { try engine.applyRetention(now: now).sessions.count }
            var total = 0
            for try await count in group { total += count }
            return total
        }
        #expect(sent == 80 + 39)
        #expect(try engine.sessions().count == 21)
        #expect(try engine.checkStore().isConsistent)
    }
}
