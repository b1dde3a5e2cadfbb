import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// A request queued outside any step while another task's step holds the session runs once that
/// step is over, whether the step succeeded or failed.
struct QueuedRequestTests {
    struct InjectedFault: Error {}

    enum FailingCall: CaseIterable, Sendable {
        case send, sendContentsOf, deliverDueSends
    }

    /// splash --timeout--> home, `timeout` also sent by splash's entry after 1 s.
    static func machine() throws -> Machine {
        try Machine(
            MachineDefinition("queued") {
                StateNode("splash") {
                    OnEntry(.send(event: "timeout", delay: .milliseconds(1_000)))
                    On("timeout", to: "home")
                }
                StateNode("home")
            })
    }

    @Test(.hangGuard, arguments: FailingCall.allCases)
    func aRequestQueuedWhileAFailingStepHoldsTheSessionStillRuns(_ call: FailingCall) async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let time = DelayedSendTests.ManualTime()
        let engine = try fixture.open(registering: [try Self.machine()]) { $0.clock = time.clock }
        defer { engine.close() }
        let session = try await engine.startSession(id: "u", machine: "queued")
        time.advance(milliseconds: 1_000)

        let held = HeldCommit(failingWith: InjectedFault())
        engine.commits.injectFaults { held($0) }
        let failing = Task {
            switch call {
            case .send: _ = try await session.send("timeout")
            case .sendContentsOf: _ = try await session.send(contentsOf: [Event("timeout")])
            case .deliverDueSends: _ = try await session.deliverDueSends()
            }
        }
        while !held.started { try await Task.sleep(for: .milliseconds(1)) }
        // The failing step holds the session: this request is left to the task that holds it.
        session.setNeedsTransition("timeout")
        held.release()
        await #expect(throws: InjectedFault.self) { try await failing.value }

        // The loop ends at the commit (the test's hang guard bounds it).
        while session.version < 2 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(session.version >= 2)
        #expect(session.configuration == ["home"])
        #expect(try engine.store.records(of: session.id).map(\.event).contains("timeout"))
    }
}

/// Requests queued outside any step run in the order they were queued, even when each starts a
/// task of its own.
struct QueuedRequestOrderTests {
    @Test(.hangGuard)
    func requestsQueuedOutsideAnyStepRunInOrder() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()], durability: .noSync)
        defer { engine.close() }
        let requests = 64
        var reordered = 0
        for round in 0..<200 {
            let session = try await engine.startSession(id: "ticker-\(round)", machine: TickerMachine.name)
            for index in 0..<requests {
                session.setNeedsTransition(TickerMachine.tick, payload: .number(Double(index)))
            }
            while session.version < UInt64(requests) + 1 { await Task.yield() }
            let order = try engine.store.records(of: session.id).dropFirst().map {
                try JSONPayloadCoder().decode(JSONValue.self, from: $0.payload)
            }
            if order != (0..<requests).map({ JSONValue.number(Double($0)) }) { reordered += 1 }
        }
        #expect(reordered == 0)
    }
}
