import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// `Engine.trimHistory`: the snapshot at a version becomes a session's base, the history before it
/// goes in one transaction, resume stays exact, readers begin at the base and say so, and the
/// store stays consistent.
struct HistoryTrimTests {
    /// The onboarding screens with a way back from home to greeting, so a session can go round them
    /// for as long as a test needs: greeting and home become the root, login is pushed. `more`
    /// routes make another definition of it.
    static func loopMachine(more: [Route] = []) throws -> Machine {
        try Machine(
            MachineDefinition(
                name: "onboarding", initial: "initial",
                routes: [
                    Route(from: "initial", to: "greeting", by: "launch"),
                    Route(from: "greeting", to: "login", by: "start"),
                    Route(from: "login", to: "home", by: "loggedIn"), Route(from: "home", to: "greeting", by: "logout"),
                ] + more,
                navigation: ["greeting": .setRoot(), "login": .push(), "home": .setRoot()]))
    }

    /// The event that moves `session` on round the loop machine.
    static func nextEvent(of session: Session) -> String {
        ["greeting": "start", "login": "loggedIn", "home": "logout"][session.configuration.first ?? ""] ?? "launch"
    }

    /// Expects `resumed` to be in `twin`'s state and to stay in it over `steps` more events round
    /// the loop machine sent to both.
    static func expectSameCourse(_ resumed: Session, as twin: Session, steps: Int = 5) async throws {
        #expect(resumed.snapshot.state == twin.snapshot.state)
        #expect(resumed.navigationStack == twin.navigationStack)
        #expect(resumed.version == twin.version)
        for _ in 0..<steps {
            try await resumed.send(nextEvent(of: resumed))
            try await twin.send(nextEvent(of: twin))
            #expect(resumed.snapshot.state == twin.snapshot.state)
            #expect(resumed.navigationStack == twin.navigationStack)
        }
    }

    /// A session of `count` records that goes round the loop machine's screens (a root screen, a
    /// pushed one, another root), each event with a payload.
    static func longSession(_ id: SessionID, records count: Int, in engine: Engine) async throws -> Session {
        let session = try await engine.startSession(id: id, machine: "onboarding", context: ["userID": 42])
        try await session.send("launch")
        let loop = ["start", "loggedIn", "logout"]
        var index = 0
        while session.version < UInt64(count) {
            try await session.send(loop[index % loop.count], payload: ["visit": .number(index)])
            index += 1
        }
        return session
    }

    @Test(arguments: [UInt64(0), 1, 5, 64])
    func aTrimmedSessionResumesExactlyAsAnUntrimmedTwinAndGoesOnTheSame(interval: UInt64) async throws {
        for scenario in ExampleScenario.all {
            let machine = try scenario.machine()
            let fixture = try EngineFixture(snapshotInterval: interval)
            defer { fixture.remove() }
            let twinFixture = try EngineFixture(snapshotInterval: interval)
            defer { twinFixture.remove() }
            let twinEngine = try twinFixture.open(registering: [machine])
            defer { twinEngine.close() }

            var engine = try fixture.open(registering: [machine])
            let session = try await scenario.begin("session", in: engine)
            let twin = try await scenario.begin("session", in: twinEngine)
            for request in scenario.steps {
                try await session.run(request)
                try await twin.run(request)
            }
            let live = session.snapshot
            guard live.version >= 3 else { continue }
            let base = live.version - 1
            let report = try engine.trimHistory(of: "session", before: base)
            #expect(report.firstVersion == base, "\(scenario)")
            #expect(report.records == Int(base - 1), "\(scenario)")
            engine.close()

            engine = try fixture.open(registering: [machine])
            defer { engine.close() }
            #expect(try engine.store.sessionInfo(for: "session")?.baseVersion == base)
            let resumed = try engine.session("session")
            // Configuration, history memory, context, state data, queued and delayed sends,
            // navigation stack with its entries' data, version.
            #expect(resumed.snapshot.state == twin.snapshot.state, "\(scenario)")
            #expect(resumed.configuration == twin.configuration, "\(scenario)")
            #expect(resumed.state.data == twin.state.data, "\(scenario)")
            #expect(resumed.navigationStack == twin.navigationStack, "\(scenario)")
            #expect(resumed.version == twin.version, "\(scenario)")
            for request in scenario.continuation {
                let step = try await resumed.run(request)
                let twinStep = try await twin.run(request)
                #expect(step.target == twinStep.target, "\(scenario) \(request)")
                #expect(resumed.state == twin.state, "\(scenario) \(request)")
                #expect(resumed.navigationStack == twin.navigationStack, "\(scenario) \(request)")
            }
            let records = try engine.store.records(of: resumed.id)
            let twinRecords = try twinEngine.store.records(of: twin.id).filter { $0.version >= base }
            #expect(records.map(\.version) == twinRecords.map(\.version), "\(scenario)")
            #expect(records.map(\.target) == twinRecords.map(\.target), "\(scenario)")
            #expect(records.map(\.stateData) == twinRecords.map(\.stateData), "\(scenario)")
            let check = try engine.checkStore()
            #expect(check.isConsistent, "\(scenario): \(check)")
        }
    }

    @Test func trimmingRemovesTheHistoryBeforeTheBaseInOneTransactionAndTheStoreStaysConsistent() async throws {
        let fixture = try EngineFixture(snapshotInterval: 10)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Self.loopMachine()])
        defer { engine.close() }
        let long = try await Self.longSession("long", records: 100, in: engine)
        let other = try await Self.longSession("other", records: 40, in: engine)
        let before = try engine.store.read { try $0.records(of: SessionID("long")) }
        let otherRecords = try engine.store.read { try $0.records(of: SessionID("other")) }

        let report = try engine.trimHistory(of: "long", before: 70)

        #expect(report.firstVersion == 70)
        #expect(report.records == 69)
        #expect(report.snapshots == 6)  // versions 10 … 60; the one at 70 is the base
        #expect(report.notice != nil)
        try engine.store.read { transaction in
            let info = try #require(try transaction.sessionInfo(for: "long"))
            #expect(info.baseVersion == 70)
            #expect(info.firstVersion == 70)
            #expect(info.headVersion == 100)
            #expect(info.recordCount == 31)
            #expect(try transaction.records(of: SessionID("long")) == Array(before.dropFirst(69)))
            #expect(
                try transaction.records(of: SessionID("long"), from: 1, limit: 5).map(\.version) == [
                    70, 71, 72, 73, 74,
                ])
            #expect(
                try transaction.records(of: SessionID("long"), direction: .backward).map(\.version)
                    == Array((70...100).reversed()))
            for record in before.prefix(69) { #expect(try transaction.record(at: record.sequence) == nil) }
            // The base snapshot is stored, the older ones are gone.
            var versions: [UInt64] = []
            try transaction.forEach(in: .snapshots, from: Array("long".utf8) + [0]) { key, _ in
                guard let split = StoreKey.splitCompound(key), split.string == "long" else { return .stop }
                versions.append(split.number)
                return .next
            }
            #expect(versions == [70, 80, 90, 100])
            let notices = try transaction.erasureNotices()
            #expect(notices.last?.kind == .records)
            #expect(notices.last.map { $0.ranges.flatMap { Array($0) } } == before.prefix(69).map(\.sequence))
            #expect(try transaction.records(of: SessionID("other")) == otherRecords)
        }
        #expect(long.version == 100)
        #expect(other.version == 40)
        let check = try engine.checkStore()
        #expect(check.isConsistent, "\(check)")
        #expect(check.erased == 69)
        #expect(check.records == 71)
        // The live session goes on.
        try await long.send(Self.nextEvent(of: long))
        #expect(try engine.store.sessionInfo(for: "long")?.headVersion == long.version)
        #expect(try engine.checkStore().isConsistent)
    }

    @Test func trimmingAgainMovesTheBaseAndTrimmingAtTheBaseDoesNothing() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Self.loopMachine()])
        defer { engine.close() }
        _ = try await Self.longSession("long", records: 80, in: engine)
        #expect(try engine.trimHistory(of: "long", before: 33).records == 32)
        let again = try engine.trimHistory(of: "long", before: 33)
        #expect(again.records == 0)
        #expect(again.notice == nil)
        // Across an index block boundary (blocks of 32 versions) and to the head.
        #expect(try engine.trimHistory(of: "long", before: 66).records == 33)
        #expect(try engine.trimHistory(of: "long", before: 80).records == 14)
        #expect(try engine.store.read { try $0.records(of: SessionID("long")) }.map(\.version) == [80])
        #expect(try engine.checkStore().isConsistent)
        let resumed = try engine.session("long")
        #expect(resumed.version == 80)
    }

    @Test func trimmingAtAVersionTheSessionDoesNotHaveIsATypedError() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Self.loopMachine()])
        defer { engine.close() }
        _ = try await Self.longSession("long", records: 20, in: engine)
        #expect(throws: ReplayError.versionOutOfRange(session: "long", requested: 21, head: 20)) {
            try engine.trimHistory(of: "long", before: 21)
        }
        #expect(throws: ReplayError.versionOutOfRange(session: "long", requested: 0, head: 20)) {
            try engine.trimHistory(of: "long", before: 0)
        }
        #expect(throws: EngineError.unknownSession("nobody")) { try engine.trimHistory(of: "nobody", before: 1) }
        try engine.trimHistory(of: "long", before: 10)
        #expect(throws: ReplayError.historyTrimmed(session: "long", requested: 5, firstVersion: 10)) {
            try engine.trimHistory(of: "long", before: 5)
        }
        let erasure = try engine.erase(SessionID("long"))
        #expect(
            throws: EngineError.sessionErased("long", SessionErasure(erasedAt: erasure.erasedAt, reason: .requested))
        ) {
            try engine.trimHistory(of: "long", before: 15)
        }
        // Nothing was written by the refusals.
        #expect(try engine.checkStore().isConsistent)
    }

    @Test func readersBeginAtTheBaseAndAVersionBelowItSaysWhereHistoryBegins() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Self.loopMachine()])
        defer { engine.close() }
        let session = try await Self.longSession("long", records: 1_300, in: engine)
        let untrimmed = try engine.replay().point(of: "long", at: 1_250)
        let untrimmedBase = try engine.replay().point(of: "long", at: 1_200)
        try engine.trimHistory(of: "long", before: 1_200)

        let error = ReplayError.historyTrimmed(session: "long", requested: 3, firstVersion: 1_200)
        #expect(error.description.contains("history begins at version 1,200"))
        #expect(throws: error) { try engine.replay().point(of: "long", at: 3) }
        // The state at a kept version is what it was before the trim.
        let point = try engine.replay().point(of: "long", at: 1_250)
        #expect(point == untrimmed)
        #expect(try engine.replay().point(of: "long", at: 1_200).version == 1_200)
        // A cursor starts at the base.
        let cursor = try engine.replay().cursor(for: "long")
        #expect(cursor.point.version == 1_200)
        #expect(cursor.point.event == untrimmedBase.event)
        #expect(session.version == 1_300)
    }

    @Test func aContextPredicateStillFindsATrimmedSession() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Self.loopMachine()])
        defer { engine.close() }
        _ = try await Self.longSession("long", records: 20, in: engine)
        try engine.trimHistory(of: "long", before: 10)
        #expect(try engine.sessions(matching: .context("userID", equals: 42)) == ["long"])
    }

    @Test func retentionTrimsLongSessionsInBoundedPassesAndTheyResumeExactly() async throws {
        let fixture = try EngineFixture(snapshotInterval: 16)
        defer { fixture.remove() }
        let twinFixture = try EngineFixture(snapshotInterval: 16)
        defer { twinFixture.remove() }
        let policy = RetentionPolicy(maximumVersionsPerSession: 50, recordsPerTrimPass: 40)
        var engine = try fixture.open(registering: [try Self.loopMachine()]) { $0.retention = policy }
        let twinEngine = try twinFixture.open(registering: [try Self.loopMachine()])
        defer { twinEngine.close() }
        _ = try await Self.longSession("long", records: 170, in: engine)
        _ = try await Self.longSession("short", records: 30, in: engine)
        let twin = try await Self.longSession("long", records: 170, in: twinEngine)

        let report = try engine.applyRetention()
        // 169 versions before the last 50 would go: 120 of them, 40 a pass.
        #expect(report.trimmedSessions == ["long"])
        #expect(report.trimmedRecords == 120)
        #expect(report.passes == 3)
        #expect(report.sessions.isEmpty)
        #expect(try engine.store.sessionInfo(for: "long")?.firstVersion == 121)
        #expect(try engine.store.sessionInfo(for: "short")?.baseVersion == nil)
        #expect(try engine.applyRetention().trimmedRecords == 0)
        #expect(try engine.checkStore().isConsistent)
        engine.close()

        engine = try fixture.open(registering: [try Self.loopMachine()]) { $0.retention = policy }
        defer { engine.close() }
        let resumed = try engine.session("long")
        // The twin wrote its records at other times: everything but the timestamp is equal.
        #expect(resumed.snapshot.state == twin.snapshot.state)
        #expect(resumed.navigationStack == twin.navigationStack)
        #expect(resumed.version == twin.version)
        #expect(resumed.snapshot.definition == twin.snapshot.definition)
        for _ in 0..<4 {
            let event = Self.nextEvent(of: resumed)
            let step = try await resumed.send(event, payload: ["after": "resume"])
            let twinStep = try await twin.send(event, payload: ["after": "resume"])
            #expect(step.target == twinStep.target)
            #expect(resumed.snapshot.state == twin.snapshot.state)
            #expect(resumed.navigationStack == twin.navigationStack)
        }
    }

    @Test func retentionNeverTrimsRecordsAFleetServerHasNotAcknowledged() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let policy = RetentionPolicy(requiredUploadDestinations: ["fleet"], maximumVersionsPerSession: 10)
        let engine = try fixture.open(registering: [try Self.loopMachine()]) { $0.retention = policy }
        defer { engine.close() }
        _ = try await Self.longSession("long", records: 60, in: engine)
        // Nothing uploaded: nothing trimmed.
        #expect(try engine.applyRetention().trimmedRecords == 0)
        // The server acknowledged the log through sequence 20: versions 1…20 may go.
        try engine.writableStore.write { try $0.setUploadCheckpoint(21, for: "fleet") }
        let report = try engine.applyRetention()
        #expect(report.trimmedRecords == 20)
        #expect(try engine.store.sessionInfo(for: "long")?.firstVersion == 21)
        #expect(try engine.checkStore().isConsistent)
    }

    @Test func verifyBeginsAtTheBaseAndSaysSoAndAForkBelowItIsRefusedTyped() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let machine = try Self.loopMachine()
        let engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        _ = try await Self.longSession("long", records: 60, in: engine)
        try engine.trimHistory(of: "long", before: 40)

        let report = try engine.verify("long", against: machine)
        #expect(report.isClean)
        #expect(report.baseVersion == 40)
        #expect(report.firstVersion == 41)
        #expect(report.verifiedRecords == 20)
        #expect(report.description.contains("from its base at version 40"), "\(report)")
        // A machine that no longer has the loop back diverges after the base, not before it.
        let withoutLoop = try Machine(
            MachineDefinition(
                name: "onboarding", initial: "initial",
                routes: [
                    Route(from: "initial", to: "greeting", by: "launch"),
                    Route(from: "greeting", to: "login", by: "start"),
                    Route(from: "login", to: "home", by: "loggedIn"),
                ]))
        let diverged = try engine.verify("long", against: withoutLoop)
        #expect((diverged.divergence?.version ?? 0) > 40)

        let trimmed = ReplayError.historyTrimmed(session: "long", requested: 39, firstVersion: 40)
        await #expect(throws: trimmed) { try await engine.fork("long", at: 39, as: "copy") }
        #expect(try engine.store.sessionInfo(for: "copy") == nil)
    }
}
