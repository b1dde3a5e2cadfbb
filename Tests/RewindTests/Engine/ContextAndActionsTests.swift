import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Custom actions, targetless transitions, raised events and ignored events through the engine:
/// what is recorded, and that the context they change survives a restart.
struct ContextAndActionsTests {
    struct Boom: Error {}

    /// `counting` counts taps in the context (a targetless transition); the third tap raises
    /// `enough`, which moves to `done` in the same macrostep. `noise` is ignored; `explode` fails.
    static func counter() throws -> Machine {
        let bindings = Bindings(actions: [
            "count": { scope in
                let count = scope.context["count"]?.doubleValue ?? 0
                scope.context["count"] = .number(count + 1)
                if count + 1 >= 3 { scope.raise("enough") }
            },
            "explode": { _ in throw Boom() },
        ])
        return try Machine(
            MachineDefinition("counter") {
                StateNode("counting", ignoring: ["noise"]) {
                    On("tap", actions: [.custom("count")])
                    On("enough", to: "done")
                    On("explode", to: "done", actions: [.custom("explode")])
                }
                StateNode("done")
            }, bindings: bindings)
    }

    @Test func targetlessTransitionsAreRecordedAndRaisedEventsStayInTheirMacrostep() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Self.counter()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "c", machine: "counter", context: ["count": 0])
        try await session.send("tap")
        try await session.send("tap")
        #expect(session.state.context["count"] == 2)
        try await session.send("tap")
        #expect(session.configuration == ["done"])
        let records = try engine.store.records(of: session.id)
        #expect(records.map(\.event) == [StepRecording.startEvent, "tap", "tap", "tap"])
        #expect(records.map(\.target) == [["counting"], ["counting"], ["counting"], ["done"]])
    }

    @Test func ignoredEventsWriteNothingAndRunNoHook() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Self.counter()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "c", machine: "counter")
        let hooks = LockedBox(0)
        session.onWillTransition { _ in hooks.withValue { $0 += 1 } }
        let step = try await session.send("noise")
        #expect(step.microsteps.isEmpty)
        #expect(hooks.current == 0)
        #expect(session.version == 1)
        #expect(try engine.store.headSequence() == 1)
    }

    @Test func aFailingActionThrowsAndWritesNothing() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Self.counter()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "c", machine: "counter")
        await #expect(throws: MachineError.self) { try await session.send("explode") }
        #expect(session.configuration == ["counting"])
        #expect(try engine.store.headSequence() == 1)
    }

    @Test(arguments: [0, 2] as [UInt64])
    func theContextActionsChangedSurvivesARestart(interval: UInt64) async throws {
        let fixture = try EngineFixture(snapshotInterval: interval)
        defer { fixture.remove() }
        var engine = try fixture.open(registering: [try Self.counter()])
        let session = try await engine.startSession(id: "c", machine: "counter", context: ["count": 0, "user": "ada"])
        try await session.send("tap")
        try await session.send("tap")
        let live = session.snapshot
        engine.close()
        engine = try fixture.open(registering: [try Self.counter()])
        defer { engine.close() }
        let resumed = try engine.session("c")
        #expect(resumed.snapshot == live)
        #expect(resumed.state.context == ["count": 2, "user": "ada"])
        try await resumed.send("tap")
        #expect(resumed.configuration == ["done"])
    }
}
