import Foundation
import Rewind
import RewindTestSupport
import Testing

@Suite("Replay cursor")
struct ReplayCursorTests {
    @Test func stepBackThenForwardReturnsIdenticalStatesAtEveryVersionOfEachExample() async throws {
        let fixture = try ReplayFixture(snapshotInterval: 4)
        for script in ReplayFixture.scripts {
            let live = try await fixture.record(script.machine, as: "\(script.machine)-1")
            var cursor = try fixture.engine.replayCursor(for: live.id)
            var forward = [cursor.point]
            while let point = try cursor.stepForward() { forward.append(point) }
            #expect(forward.count == Int(live.version) + 1, "\(script.machine)")
            #expect(forward.map(\.version) == Array(0...live.version))

            // The head equals what the live session holds.
            let head = try #require(forward.last)
            #expect(head.state == live.state, "\(script.machine)")
            #expect(head.navigation == live.navigationStack, "\(script.machine)")
            #expect(head.activeStates == live.activeStates, "\(script.machine)")

            var backward = [cursor.point]
            while let point = try cursor.stepBack() { backward.append(point) }
            #expect(Array(backward.reversed()) == forward, "\(script.machine)")
            var again = [cursor.point]
            while let point = try cursor.stepForward() { again.append(point) }
            #expect(again == forward, "\(script.machine)")

            // And each point is what seeking there directly gives.
            for expected in forward {
                #expect(try cursor.seek(to: expected.version) == expected, "\(script.machine) v\(expected.version)")
            }
        }
    }

    @Test func pointsCarryTheEventPayloadNavigationAndTime() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("loading-view", as: "view")
        let records = try fixture.engine.store.read { try $0.records(of: SessionID("view")) }
        var cursor = try fixture.engine.replayCursor(for: SessionID("view"))
        let zero = cursor.point
        #expect(zero.version == 0 && zero.event == nil && zero.configuration.isEmpty && zero.timestamp == nil)

        let loaded = try cursor.seek(to: 2)
        #expect(loaded.event == "loaded")
        #expect(loaded.payload == ["title": "Inbox", "items": ["a", "b"]])
        #expect(loaded.source == ["loading"])
        #expect(loaded.configuration == ["ready"])
        #expect(loaded.activeStates == ["ready"])
        #expect(loaded.stateData["ready"] == ["title": "Inbox", "items": ["a", "b"]])
        #expect(loaded.timestamp == records[1].timestamp)
        #expect(loaded.navigationOperations == records[1].navigation)

        let first = try cursor.first()
        #expect(first.version == 1 && first.event == StepRecording.startEvent)
        let last = try cursor.last()
        #expect(last.version == UInt64(records.count))
    }

    @Test func seekEqualsAFreshReplayFromVersionOneAtRandomPointsOfA10000VersionSession() async throws {
        let fixture = try ReplayFixture(snapshotInterval: 64)
        let session = try await fixture.engine.startSession(id: "long", machine: "loading-view")
        var generator = SeededRandom(seed: 42)
        while session.version < 10_000 {
            switch session.configuration {
            case ["loading"]:
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    try await session.send("failed", payload: .string("error \(session.version)"))
                } else {
                    try await session.send(
                        "loaded", payload: ["title": .string("v\(session.version)"), "items": [1, 2]])
                }
            case ["ready"]: try await session.send("reload")
            default: try await session.send("retry")
            }
        }

        // The expected states: every record re-run from version 1, no snapshot.
        let machine = try ExampleMachines.LoadingView.machine()
        let recording = StepRecording(
            machine: machine, machineName: "loading-view", definition: machine.definition.contentVersion,
            coder: fixture.engine.store.coder)
        let targets = Set((0..<200).map { _ in UInt64.random(in: 0...10_000, using: &generator) })
        var expected: [UInt64: SessionSnapshot] = [:]
        var snapshot = SessionSnapshot.empty(definition: recording.definition)
        if targets.contains(0) { expected[0] = snapshot }
        try fixture.engine.store.read { transaction in
            try transaction.forEachRecord(of: session.id) { record in
                snapshot = try recording.replay(record, on: snapshot).1
                if targets.contains(record.version) { expected[record.version] = snapshot }
                return .next
            }
        }
        #expect(expected.count == targets.count)

        var cursor = try fixture.engine.replayCursor(for: session.id)
        for version in targets.shuffled(using: &generator) {
            let point = try cursor.seek(to: version)
            let fresh = try #require(expected[version])
            #expect(point.version == version)
            #expect(point.state == fresh.state, "version \(version)")
            #expect(point.navigation == fresh.navigation, "version \(version)")
        }
    }

    @Test func seekToATimeGoesToTheLastVersionWrittenAtOrBeforeIt() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("browser", as: "b")
        let id = SessionID("b")
        let records = try fixture.engine.store.read { try $0.records(of: id) }
        var cursor = try fixture.engine.replayCursor(for: id)
        for record in records {
            let point = try cursor.seek(to: record.timestamp)
            let last = try #require(records.last { $0.timestamp <= record.timestamp })
            #expect(point.version == last.version)
            let justAfter = Timestamp(microsecondsSince1970: record.timestamp.microsecondsSince1970 + 1)
            let later = try #require(records.last { $0.timestamp <= justAfter })
            #expect(try cursor.seek(to: justAfter).version == later.version)
        }
        let before = Timestamp(microsecondsSince1970: records[0].timestamp.microsecondsSince1970 - 1)
        #expect(try cursor.seek(to: before).version == 0)
    }

    @Test func seekingPastTheHeadThrowsAndStays() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("onboarding", as: "o")
        var cursor = try fixture.engine.replayCursor(for: SessionID("o"))
        try cursor.seek(to: 2)
        #expect(throws: ReplayError.versionOutOfRange(session: SessionID("o"), requested: 5, head: 4)) {
            try cursor.seek(to: 5)
        }
        #expect(cursor.point.version == 2)
        try cursor.last()
        #expect(try cursor.stepForward() == nil)
        #expect(cursor.point.version == 4)
        #expect(throws: EngineError.unknownSession(SessionID("nobody"))) {
            try fixture.engine.replayCursor(for: SessionID("nobody"))
        }
    }

    @Test func recordsOfAnUnregisteredDefinitionReplayWithTheStoredOneAndItsBindings() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-replay")
        defer { directory.remove() }
        let configuration = EngineConfiguration(durability: .noSync, snapshotInterval: 0)
        let id = SessionID("c")
        var states: [MachineState] = []
        do {
            let engine = try Engine(directory: directory.path, configuration: configuration)
            defer { engine.close() }
            try engine.register(try CounterMachine.machine())
            let session = try await engine.startSession(id: id, machine: "counter", context: ["count": 0])
            try await session.send("tick")
            try await session.send("tick")
            try await session.send("stop")
            var cursor = try engine.replayCursor(for: id)
            states = [cursor.point.state]
            while let point = try cursor.stepForward() { states.append(point.state) }
            #expect(states.count == 5)
            #expect(states[3].context == ["count": 2])
        }

        // Reopened with a changed definition registered: the records name the old one.
        let engine = try Engine(directory: directory.path, configuration: configuration)
        defer { engine.close() }
        try engine.register(try CounterMachine.machine(stopTarget: "counting"))
        var unbound = try engine.replayCursor(for: id)
        let version = CounterMachine.definition().contentVersion
        #expect(
            throws: ReplayError.definitionNeedsBindings(
                machine: "counter", version: version, guards: ["allowed"], actions: ["count"])
        ) {
            try unbound.seek(to: 2)
        }
        var cursor = try engine.replayCursor(for: id, bindings: CounterMachine.bindings)
        for (version, state) in states.enumerated() {
            #expect(try cursor.seek(to: UInt64(version)).state == state)
        }
    }

    @Test func seekingStartsFromTheNearestStoredSnapshotAtOrBeforeTheVersion() async throws {
        let fixture = try ReplayFixture(snapshotInterval: 4, registering: [try CounterMachine.machine()])
        let session = try await fixture.engine.startSession(id: "c", machine: "counter", context: ["count": 0])
        for _ in 0..<9 { try await session.send("tick") }
        // Doctor the snapshot at version 4: a seek that starts from it shows the doctored count.
        let key = StoreKey.compound("c", 4)
        let stored = try #require(try fixture.engine.store.read { try $0.value(forKey: key, in: .snapshots) })
        var snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: Data(stored))
        #expect(snapshot.state.context == ["count": 3])
        snapshot.state.context = ["count": 100]
        let doctored = try JSONEncoder().encode(snapshot)
        try fixture.engine.writableStore.write { try $0.put(Array(doctored), forKey: key, in: .snapshots) }

        var cursor = try fixture.engine.replayCursor(for: session.id)
        #expect(try cursor.seek(to: 3).context == ["count": 2])
        #expect(try cursor.seek(to: 4).context == ["count": 100])
        #expect(try cursor.seek(to: 6).context == ["count": 102])
        #expect(try cursor.seek(to: 8).context == ["count": 7])
        #expect(try cursor.stepBack()?.context == ["count": 103])
    }
}
