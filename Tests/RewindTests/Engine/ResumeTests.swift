import Foundation
import Rewind
import RewindTestSupport
import Testing

/// A session resumed after the engine closed is exactly the live one: configuration, history
/// memory, context, state data, navigation stack and version; and it goes on like a session that
/// never stopped.
struct ResumeTests {
    static let intervals: [UInt64] = [0, 1, 3, 64]

    @Test(arguments: ExampleScenario.all, intervals)
    func resumedSessionEqualsTheLiveOneAndContinuesLikeANeverRestartedTwin(
        scenario: ExampleScenario, interval: UInt64
    ) async throws {
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
        #expect(live.version == UInt64(scenario.steps.count + 1))
        engine.close()

        engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        let resumed = try engine.session("session")
        #expect(resumed.snapshot == live)
        #expect(resumed.state.history == live.state.history)
        #expect(resumed.navigationStack == live.navigation)

        for request in scenario.continuation {
            let step = try await resumed.run(request)
            let twinStep = try await twin.run(request)
            #expect(step.target == twinStep.target, "\(request)")
            #expect(resumed.state == twin.state, "\(request)")
            #expect(resumed.navigationStack == twin.navigationStack, "\(request)")
            #expect(resumed.version == twin.version)
        }
        // The records of both are the same steps.
        let records = try engine.store.records(of: resumed.id)
        let twinRecords = try twinEngine.store.records(of: twin.id)
        #expect(records.map(\.event) == twinRecords.map(\.event))
        #expect(records.map(\.target) == twinRecords.map(\.target))
        #expect(records.map(\.navigation) == twinRecords.map(\.navigation))
        #expect(records.map(\.payload) == twinRecords.map(\.payload))
        #expect(records.map(\.stateData) == twinRecords.map(\.stateData))
    }

    @Test(arguments: intervals)
    func deepHistorySurvivesARestart(interval: UInt64) async throws {
        let machine = try ExampleMachines.Browser.machine()
        let fixture = try EngineFixture(snapshotInterval: interval)
        defer { fixture.remove() }
        var engine = try fixture.open(registering: [machine])
        let session = try await engine.startSession(id: "reader", machine: "browser")
        for event in ["open", "showComments", "openSettings"] { try await session.send(event) }
        #expect(session.activeStates == ["settings"])
        #expect(session.state.history["browse.history"] == ["postComments"])
        engine.close()

        engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        let resumed = try engine.session("reader")
        #expect(resumed.state.history["browse.history"] == ["postComments"])
        try await resumed.send("closeSettings")
        #expect(resumed.configuration == ["app", "browse", "feed", "post", "postComments"])
        // The navigation stack is what an uninterrupted run of the same events gives.
        var expected = ScreenStack()
        var state = MachineState()
        for (index, event) in ["open", "showComments", "openSettings", "closeSettings"].enumerated() {
            if index == 0 {
                let start = try machine.start()
                expected.apply(start.navigation)
                state = start.state
            }
            let step = try machine.send(event, in: state)
            expected.apply(step.navigation)
            state = step.state
        }
        #expect(resumed.navigationStack == expected)
        #expect(resumed.state == state)
        try await resumed.send("back")
        #expect(resumed.activeStates == ["postBody"])
    }

    @Test func resumeStartsFromTheLatestSnapshot() async throws {
        // A snapshot the records would not give (a changed context) proves resume reads it.
        let machine = try ExampleMachines.Onboarding.machine()
        let fixture = try EngineFixture(snapshotInterval: 2)
        defer { fixture.remove() }
        var engine = try fixture.open(registering: [machine])
        let session = try await engine.startSession(id: "user", machine: "onboarding", context: ["n": 1])
        try await session.send("launch")
        try await session.send("start")
        var marked = try #require(
            try engine.store.read { transaction in
                try transaction.value(forKey: StoreKey.compound("user", 2), in: .snapshots)
            })
        var snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: Data(marked))
        #expect(snapshot.version == 2)
        snapshot.state.context = ["n": 2]
        marked = Array(try JSONEncoder().encode(snapshot))
        try engine.writableStore.write { try $0.put(marked, forKey: StoreKey.compound("user", 2), in: .snapshots) }
        engine.close()

        engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        let resumed = try engine.session("user")
        #expect(resumed.version == 3)
        #expect(resumed.configuration == ["login"])
        #expect(resumed.state.context == ["n": 2])
    }

    @Test func sessionsListsEveryStoredSessionWithItsHead() async throws {
        let machine = try ExampleMachines.Onboarding.machine()
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        let first = try await engine.startSession(id: "a", machine: "onboarding")
        _ = try await engine.startSession(id: "b", machine: "onboarding")
        try await first.send("launch")
        let sessions = try engine.sessions()
        #expect(sessions.map(\.session.rawValue) == ["a", "b"])
        #expect(sessions.map(\.headVersion) == [2, 1])
        #expect(sessions.allSatisfy { $0.machine == "onboarding" })
    }
}
