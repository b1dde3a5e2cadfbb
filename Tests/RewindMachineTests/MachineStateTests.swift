import Foundation
import RewindExamples
import Testing

@testable import RewindMachine

/// The interpreter's whole state is a value that encodes and restores exactly.
struct MachineStateTests {
    private func roundTrip(_ state: MachineState) throws -> MachineState {
        try JSONDecoder().decode(MachineState.self, from: state.encoded())
    }

    /// A state is a value though its members other than the configuration share one reference:
    /// changing any of them in a copy leaves the original as it was, and equality and hashing
    /// read the members, not the sharing.
    @Test func aCopyChangedInAnyMemberLeavesTheOriginalAlone() {
        let original = MachineState(
            configuration: ["a"], history: ["h": ["a"]], context: .object(["n": 1]), data: ["a": "x"],
            internalQueue: [Event("raised")], pendingSends: [ScheduledEvent(event: Event("later"), due: .seconds(1))])
        let changes: [(inout MachineState) -> Void] = [
            { $0.history["h"] = ["b"] }, { $0.context = .null }, { $0.data["a"] = nil },
            { $0.internalQueue.removeAll() }, { $0.pendingSends.append(ScheduledEvent(event: Event("e"), due: .zero)) },
            { $0.configuration = ["b"] }, { $0.isFinished = true },
        ]
        for (index, change) in changes.enumerated() {
            var copy = original
            change(&copy)
            #expect(copy != original, "change \(index)")
            #expect(original.history == ["h": ["a"]] && original.data == ["a": "x"], "change \(index)")
            #expect(original.internalQueue.count == 1 && original.pendingSends.count == 1, "change \(index)")
            #expect(original.context == .object(["n": 1]) && original.configuration == ["a"], "change \(index)")
        }
        // Equal members, apart: equal, with equal hashes; a state emptied again equals a new one.
        let rebuilt = MachineState(
            configuration: ["a"], history: ["h": ["a"]], context: .object(["n": 1]), data: ["a": "x"],
            internalQueue: [Event("raised")], pendingSends: [ScheduledEvent(event: Event("later"), due: .seconds(1))])
        #expect(rebuilt == original && rebuilt.hashValue == original.hashValue)
        var emptied = original
        emptied.history = [:]
        emptied.context = .null
        emptied.data = [:]
        emptied.internalQueue = []
        emptied.pendingSends = []
        #expect(emptied == MachineState(configuration: ["a"]))
        #expect(emptied.hashValue == MachineState(configuration: ["a"]).hashValue)
    }

    @Test func encodingRoundTripsExactlyAndIsStable() throws {
        let machine = try ExampleMachines.Browser.machine()
        let state = try run(machine, "open", "showComments", "openSettings")
        let restored = try roundTrip(state)
        #expect(restored == state)
        #expect(try restored.encoded() == state.encoded())
    }

    @Test func restoredMachineBehavesLikeTheOriginalHistoryIncluded() throws {
        let machine = try ExampleMachines.Browser.machine()
        let original = try run(machine, "open", "showComments", "openSettings")
        let restored = try roundTrip(original)
        for events in [
            ["closeSettings"], ["closeSettings", "back"],
            ["closeSettings", "showProfile", "openSettings", "closeSettings"],
        ] {
            var a = original
            var b = restored
            for event in events {
                let stepA = try machine.send(event, in: a)
                let stepB = try machine.send(event, in: b)
                #expect(stepA == stepB)
                a = stepA.state
                b = stepB.state
            }
        }
        let back = try machine.send("closeSettings", in: restored)
        #expect(leaves(machine, back.state) == ["postComments"])
    }

    @Test func contextDataAndPendingSendsSurviveTheRoundTrip() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") {
                    On("go", to: "b", actions: [.send(event: "timeout", delay: .milliseconds(500), id: "t1")])
                }
                StateNode("b") { On("timeout", to: "a") }
            })
        let start = try machine.start(context: ["user": "kim"]).state
        let state = try machine.send("go", payload: ["item": 7], in: start, now: .milliseconds(1_000)).state
        #expect(
            state.pendingSends == [ScheduledEvent(event: Event("timeout"), due: .milliseconds(1_500), sendID: "t1")])
        #expect(state.data["b"] == ["item": 7])
        let restored = try roundTrip(state)
        #expect(restored == state)
        #expect(try machine.sendNextDue(in: restored, now: .milliseconds(1_499)) == nil)
        let due = try #require(try machine.sendNextDue(in: restored, now: .milliseconds(1_500)))
        #expect(due.state.configuration == ["a"])
        #expect(due.state.pendingSends.isEmpty)
        #expect(due.state.context == ["user": "kim"])
    }

    @Test func unknownStateInARestoredValueIsReported() throws {
        let machine = try ExampleMachines.Onboarding.machine()
        let broken = MachineState(configuration: ["nowhere"])
        #expect(throws: MachineError.unknownState("nowhere")) { try machine.send("launch", in: broken) }
    }

    @Test func cancelRemovesAPendingSend() throws {
        let machine = try Machine(
            MachineDefinition("m") {
                StateNode("a") {
                    OnEntry(.send(event: "tick", delay: .milliseconds(100), id: "tick"))
                    On("stop", to: "b", actions: [.cancel(sendID: "tick")])
                }
                StateNode("b")
            })
        let state = try machine.start().state
        #expect(state.pendingSends.count == 1)
        #expect(try machine.send("stop", in: state).state.pendingSends.isEmpty)
    }
}
