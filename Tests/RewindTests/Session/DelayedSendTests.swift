import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// SCXML `<send>` in persisted sessions: sends without a delay are delivered with the step that
/// made them (in its append), delayed ones by `deliverDueSends()` once due; each delivery is a
/// durable step recorded as `rewind.due`, replayed exactly on resume and by verification.
struct DelayedSendTests {
    /// splash --(on entry: send `timeout` after `delay` ms)--> home on `timeout`; home --go
    /// [send `next`, no delay]--> lobby --next--> room --x--> done (lobby --x--> elsewhere).
    static func machine(delay: Int) throws -> Machine {
        try Machine(
            MachineDefinition("sends") {
                StateNode("splash") {
                    OnEntry(.send(event: "timeout", delay: .milliseconds(delay)))
                    On("timeout", to: "home")
                }
                StateNode("home") { On("go", to: "lobby", actions: [.send(event: "next")]) }
                StateNode("lobby") {
                    On("next", to: "room")
                    On("x", to: "elsewhere")
                }
                StateNode("room") { On("x", to: "done") }
                StateNode("elsewhere")
                StateNode("done")
            })
    }

    func events(of engine: Engine, _ session: String) throws -> [String] {
        try engine.store.records(of: try SessionID(session), versions: 1...100).map(\.event)
    }

    @Test func aSendWithoutDelayIsDeliveredRightAfterItsStepAndRecorded() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Self.machine(delay: 0)])
        defer { engine.close() }
        let entered = LockedBox<[String]>([])
        let session = try await engine.startSession(id: "u", machine: "sends") { session in
            for id in ["splash", "home", "lobby", "room"] {
                session.onDidEnter(id) { _ in entered.withValue { $0.append(id) } }
            }
        }
        // The start scheduled `timeout` with no delay: delivered before startSession returned.
        #expect(session.configuration == ["home"])
        let step = try await session.send("go")
        // The caller gets its own step; the send it made was delivered after it.
        #expect(step.target == ["lobby"])
        #expect(session.configuration == ["room"])
        #expect(session.state.pendingSends.isEmpty)
        #expect(session.nextDueSend == nil)
        #expect(entered.current == ["splash", "home", "lobby", "room"])
        #expect(try events(of: engine, "u") == ["rewind.start", "rewind.due", "go", "rewind.due"])
        // Each delivery went in its step's append: one commit for the start and its delivery, one
        // for `go` and its delivery (a crash cannot leave the send made but not delivered).
        #expect(engine.commitStatistics.commits == 2)
        #expect(engine.commitStatistics.appends == 2)
        let due = try #require(try engine.store.records(of: SessionID("u"), versions: 4...4).first)
        let payload = try JSONPayloadCoder().decode(JSONValue.self, from: due.payload)
        #expect(payload["event"] == .string("next"))
        #expect(due.source == ["lobby"] && due.target == ["room"])
        // The same as the in-memory interpreter.
        let interpreter = Interpreter(machine: try Self.machine(delay: 0))
        try interpreter.start()
        try interpreter.send("go")
        #expect(interpreter.state.configuration == session.configuration)
        #expect(session.deferredErrors.isEmpty)
    }

    /// A clock the test moves by hand (the engine's `EngineConfiguration.clock`).
    final class ManualTime: Sendable {
        private let now = LockedBox(Timestamp(microsecondsSince1970: 1_800_000_000_000_000))
        var clock: @Sendable () -> Timestamp { { [now] in now.current } }
        func advance(milliseconds: Int64) { now.withValue { $0.microsecondsSince1970 += milliseconds * 1000 } }
    }

    func open(_ fixture: EngineFixture, delay: Int, time: ManualTime) throws -> Engine {
        try fixture.open(registering: [try Self.machine(delay: delay)]) {
            $0.durability = .durable
            $0.clock = time.clock
        }
    }

    @Test func aDelayedSendWaitsUntilDueThenIsDeliveredDurably() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let time = ManualTime()
        let engine = try open(fixture, delay: 2_000, time: time)
        defer { engine.close() }
        let started = time.clock()
        let session = try await engine.startSession(id: "u", machine: "sends")
        #expect(session.nextDueSend == Timestamp(microsecondsSince1970: started.microsecondsSince1970 + 2_000_000))
        #expect(session.configuration == ["splash"])
        // Not due yet: nothing delivered, nothing written.
        #expect(try await session.deliverDueSends().isEmpty)
        time.advance(milliseconds: 1_999)
        #expect(try await session.deliverDueSends().isEmpty)
        #expect(session.version == 1)
        time.advance(milliseconds: 1)
        let steps = try await session.deliverDueSends()
        #expect(steps.map { $0.event?.name } == ["timeout"])
        #expect(session.configuration == ["home"])
        #expect(session.version == 2)
        #expect(session.nextDueSend == nil)
        #expect(try await session.deliverDueSends().isEmpty)
        let due = try #require(try engine.store.records(of: SessionID("u"), versions: 2...2).first)
        #expect(due.event == StepRecording.dueEvent && due.timestamp == time.clock())

        // Resumed from the log alone (no snapshots): the same state, and verification reproduces
        // every record, the delivery included.
        let resumed = try engine.session("u")
        #expect(resumed.snapshot == session.snapshot)
        let report = try engine.verify(SessionID("u"), against: try Self.machine(delay: 2_000))
        #expect(report.divergence == nil)
        #expect(report.verifiedRecords == 2)
    }

    @Test func aSendDueBeyondTheTimestampRangeReportsTheLatestTimestampInsteadOfTrapping() async throws {
        // A delay of 10^16 ms (a JSON document may carry any Int) is due past Int64.max µs.
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let engine = try open(fixture, delay: 10_000_000_000_000_000, time: ManualTime())
        defer { engine.close() }
        let session = try await engine.startSession(id: "u", machine: "sends")
        #expect(session.nextDueSend == Timestamp(microsecondsSince1970: .max))
        #expect(try await session.deliverDueSends().isEmpty)
        #expect(session.configuration == ["splash"])
    }

    @Test func aPendingSendSurvivesAReopenAndIsDeliveredByTheResumedSession() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let time = ManualTime()
        do {
            let engine = try open(fixture, delay: 2_000, time: time)
            _ = try await engine.startSession(id: "u", machine: "sends")
            engine.close()
        }
        // It came due while the store was closed.
        time.advance(milliseconds: 5_000)
        let engine = try open(fixture, delay: 2_000, time: time)
        defer { engine.close() }
        let session = try engine.session("u")
        #expect(session.state.pendingSends.map(\.event.name) == ["timeout"])
        #expect(try await session.deliverDueSends().count == 1)
        #expect(session.configuration == ["home"])
        #expect(try engine.session("u").snapshot == session.snapshot)
    }

    @Test func aDeliveredSendNobodyHandlesIsStillRecorded() async throws {
        // The delivery changes no configuration but consumes the pending send: recorded (source
        // = target), so the resumed session does not deliver it again.
        let machine = try Machine(
            MachineDefinition("ping") {
                StateNode("idle") { OnEntry(.send(event: "ping")) }
            })
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        let session = try await engine.startSession(id: "u", machine: "ping")
        #expect(session.version == 2)
        #expect(session.state.pendingSends.isEmpty)
        #expect(session.deferredErrors.isEmpty)
        let records = try engine.store.records(of: SessionID("u"), versions: 1...2)
        #expect(records.map(\.event) == ["rewind.start", "rewind.due"])
        #expect(records[1].source == ["idle"] && records[1].target == ["idle"])
        let resumed = try engine.session("u")
        #expect(resumed.snapshot == session.snapshot)
        #expect(try await resumed.deliverDueSends().isEmpty)
    }

    @Test func aBulkSendDeliversDueSendsBetweenItsEventsAsConsecutiveSendsWould() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Self.machine(delay: 0)])
        defer { engine.close() }
        let bulk = try await engine.startSession(id: "bulk", machine: "sends")
        let steps = try await bulk.send(contentsOf: [Event("go"), Event("x")])
        // One step per event sent; `next` (sent by `go`) was delivered before `x`.
        #expect(steps.map(\.target) == [["lobby"], ["done"]])
        #expect(bulk.configuration == ["done"])
        let one = try await engine.startSession(id: "one", machine: "sends")
        try await one.send("go")
        try await one.send("x")
        #expect(one.configuration == bulk.configuration)
        #expect(try events(of: engine, "bulk") == events(of: engine, "one"))
        #expect(try events(of: engine, "bulk") == ["rewind.start", "rewind.due", "go", "rewind.due", "x"])
    }

    @Test func appsCannotSendTheReservedName() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try open(fixture, delay: 10_000, time: ManualTime())
        defer { engine.close() }
        let session = try await engine.startSession(id: "u", machine: "sends")
        await #expect(throws: EngineError.reservedEventName(StepRecording.dueEvent)) {
            try await session.send(StepRecording.dueEvent)
        }
        #expect(session.version == 1)
    }

    @Test func aDueRecordThatDoesNotMatchThePendingSendIsAReplayFailure() throws {
        // Replaying a `rewind.due` of `timeout` on a state whose pending send is another event.
        let recording = StepRecording(
            machine: try Self.machine(delay: 0), machineName: "sends", definition: "d", coder: JSONPayloadCoder())
        let start = try recording.evaluate(
            .start(context: .null), in: MachineState(), at: Timestamp(microsecondsSince1970: 1_000_000))
        #expect(start.state.pendingSends.map(\.event.name) == ["timeout"])
        #expect(throws: EngineError.delayedSendNotDue(event: "other", atMilliseconds: 1_000)) {
            try recording.evaluate(
                .deliverDue(Event("other")), in: start.state, at: Timestamp(microsecondsSince1970: 1_000_000))
        }
        let delivered = try recording.evaluate(
            .deliverDue(Event("timeout")), in: start.state, at: Timestamp(microsecondsSince1970: 1_000_000))
        #expect(delivered.target == ["home"])
    }

    @Test func aDueRecordNamingNoEventIsACorruptedEntry() throws {
        let coder = JSONPayloadCoder()
        let recording = StepRecording(
            machine: try Self.machine(delay: 0), machineName: "sends", definition: "d", coder: coder)
        let record = TransitionRecord(
            sequence: 7, session: SessionID("u"), version: 2,
            transition: TransitionDraft(
                machine: "sends", definition: "d", event: StepRecording.dueEvent, source: ["splash"], target: ["home"],
                payload: try coder.encode(JSONValue.object(["payload": .null]))))
        #expect(
            throws: EngineError.corruptedEntry(
                what: "the delayed-send record of 'u' version 2", reason: "its payload names no event")
        ) {
            try recording.request(of: record)
        }
    }
}
