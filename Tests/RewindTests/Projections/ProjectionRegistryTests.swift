import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

struct ProjectionRegistryTests {
    // MARK: Inline and rebuilt

    @Test func inlineStatesAreByteForByteTheRebuiltOnes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(
            in: directory, projections: [ScreenFlowProjection(), NavigationProjection(), EventCountProjection()])
        defer { engine.close() }

        // Concurrent sessions, so group commits carry several records of several sessions.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<12 {
                group.addTask { try await ProjectionFixtures.onboard(engine, id: "user-\(index)", steps: index % 4) }
                group.addTask {
                    let session = try engine.makeSession(id: try SessionID("kanji-\(index)"), machine: "kanji")
                    for move in ProjectionFixtures.kanjiMoves.prefix(1 + index % 5) {
                        try await session.enter(move.state, data: move.data)
                    }
                }
            }
            try await group.waitForAll()
        }
        // And one commit carrying several records of several sessions, as a group commit does.
        try engine.writableStore.write { transaction in
            var appended: [TransitionRecord] = []
            for (index, id) in ["user-1", "kanji-2", "user-1", "new"].enumerated() {
                let transition = ProjectionFixtures.transition(
                    event: "e\(index)", to: "s\(index)", navigation: [.push("s\(index)")], at: Int64(index))
                let result = try transaction.append([transition], to: try SessionID(id))
                appended.append(
                    TransitionRecord(
                        sequence: result.firstSequence, session: result.session, version: result.firstVersion,
                        transition: transition))
            }
            try engine.projections.applyInline(appended, in: transaction)
        }
        let head = try engine.store.headSequence()
        let inlineStates = try ProjectionFixtures.entries(of: engine.writableStore, in: .projections)
        let inlineCheckpoints = try ProjectionFixtures.entries(of: engine.writableStore, in: .checkpoints)
        #expect(inlineStates.count == 3 * 25)
        for name in engine.registeredProjections {
            #expect(try engine.projectionStatus(named: name)?.checkpoint == head)
        }

        var reports: [ProjectionProgress] = []
        for name in engine.registeredProjections {
            try engine.rebuildProjection(named: name) { reports.append($0) }
        }
        #expect(try ProjectionFixtures.entries(of: engine.writableStore, in: .projections) == inlineStates)
        #expect(try ProjectionFixtures.entries(of: engine.writableStore, in: .checkpoints) == inlineCheckpoints)
        #expect(reports.last?.recordsDone == head)
        #expect(reports.last?.recordsTotal == head)
    }

    // MARK: Catch-up

    @Test func aProjectionAddedToALogOf100kRecordsCatchesUp() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sessions = 1_000
        let perSession = 100
        do {
            var configuration = StoreConfiguration()
            configuration.environment.options.insert(.noSync)
            let store = try TransitionStore(directory: directory.path, configuration: configuration)
            defer { store.close() }
            for round in 0..<perSession {
                try store.write { transaction in
                    for index in 0..<sessions {
                        let operation: NavigationOperation =
                            round == 0 ? .setRoot("s0") : (round % 3 == 0 ? .pop : .push("s\(round)"))
                        try transaction.append(
                            [
                                ProjectionFixtures.transition(
                                    event: "e\(round)", to: "s\(round)", navigation: [operation],
                                    at: Int64(round * sessions + index))
                            ],
                            to: try SessionID("session-\(index)"))
                    }
                }
            }
        }
        let engine = try Engine(directory: directory.path, configuration: ProjectionFixtures.configuration())
        defer { engine.close() }
        #expect(try engine.store.headSequence() == UInt64(sessions * perSession))

        var reports: [ProjectionProgress] = []
        let status = try engine.register(ScreenFlowProjection()) { reports.append($0) }
        try engine.register(NavigationProjection())
        #expect(status.checkpoint == 100_000)
        #expect(reports.count >= 2)
        #expect(reports.last?.recordsDone == 100_000 && reports.last?.recordsTotal == 100_000)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.recordsDone <= $1.recordsDone })

        // Hand-computed: every session ended in s99 after 100 records and went through s0…s99;
        // its stack started [s0] and then pushed on rounds not divisible by 3, popped on the others.
        var expectedStack = ScreenStack()
        for round in 0..<perSession {
            expectedStack.apply(round == 0 ? .setRoot("s0") : (round % 3 == 0 ? .pop : .push("s\(round)")))
        }
        let flows = try engine.screenFlows.all()
        #expect(flows.count == sessions)
        let stacks = try engine.navigationStacks.all()
        for index in [0, 499, 999] {
            let flow = try #require(flows["session-\(index)"])
            #expect(flow.configuration == ["s99"] && flow.version == 100 && flow.lastEvent == "e99")
            #expect(flow.reached.count == 100)
            #expect(flow.updated == Timestamp(microsecondsSince1970: Int64(99 * sessions + index)))
            #expect(stacks["session-\(index)"] == expectedStack)
        }
        #expect(try engine.screenFlows.funnel(machine: "bulk").reached["s50"] == sessions)
    }

    @Test func catchingUpWhileSessionsAppendEndsEqualToARebuild() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(in: directory)
        defer { engine.close() }
        func browse(_ id: String, moves: Int) async throws {
            let session = try engine.makeSession(id: try SessionID(id), machine: "kanji")
            try await session.enter("all")
            for move in 0..<moves {
                try await session.enter(move % 2 == 0 ? "detail" : "list", data: ["move": .number(Double(move))])
            }
        }
        for index in 0..<4 { try await browse("before-\(index)", moves: 40) }

        // Register and catch up in small batches on another thread while sessions keep appending.
        let runner = NavigationProjection().runner(mode: .inline)
        try engine.projections.add(runner)
        async let caughtUp: ProjectionStatus = withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        try engine.projections.catchUp(runner, store: engine.writableStore, batchSize: 7) { _ in }
                    })
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<4 { group.addTask { try await browse("during-\(index)", moves: 40) } }
            try await group.waitForAll()
        }
        _ = try await caughtUp
        let head = try engine.store.headSequence()
        #expect(try engine.projectionStatus(named: runner.name)?.checkpoint == head)
        let live = try ProjectionFixtures.entries(of: engine.writableStore, in: .projections)
        #expect(live.count == 8)
        try engine.rebuildProjection(named: runner.name)
        #expect(try ProjectionFixtures.entries(of: engine.writableStore, in: .projections) == live)
    }

    @Test func aCatchUpProjectionWaitsForCatchUpWhileInlineOnesFollowEveryAppend() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(in: directory)
        defer { engine.close() }
        try engine.register(ScreenFlowProjection(), mode: .inline)
        try engine.register(EventCountProjection(), mode: .catchUp)
        try await ProjectionFixtures.onboard(engine, id: "a", steps: 3)
        #expect(try engine.projectionStatus(named: "rewind.screen-flows")?.checkpoint == 4)
        #expect(try engine.projectionStatus(named: "test.event-counts")?.checkpoint == 0)
        try engine.catchUpProjections()
        #expect(try engine.projectionStatus(named: "test.event-counts")?.checkpoint == 4)
        #expect(try engine.reader(for: EventCountProjection()).state(forKey: "a") == 4)
    }

    @Test func anInlineRunFirstFoldsRecordsAnotherWriterAppended() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(in: directory, projections: [EventCountProjection()])
        defer { engine.close() }
        try await ProjectionFixtures.onboard(engine, id: "a", steps: 1)
        // Another writer (another store handle, as another process would) appends behind the engine's back.
        let other = try TransitionStore(directory: directory.path)
        try other.append([ProjectionFixtures.transition(event: "go", to: "x", at: 1)], to: SessionID("b"))
        other.close()
        #expect(try engine.projectionStatus(named: "test.event-counts")?.checkpoint == 2)
        try await engine.session("a").send("start")
        #expect(try engine.projectionStatus(named: "test.event-counts")?.checkpoint == 4)
        #expect(try engine.reader(for: EventCountProjection()).states() == ["a": 3, "b": 1])
    }

    // MARK: Failures

    @Test func aFailingProjectionStopsAtTheRecordWithoutHurtingTheLogOrTheOthers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let failing = EventCountProjection()
        failing.failOn.withValue { $0 = (session: "bad", event: "start") }
        let engine = try ProjectionFixtures.engine(in: directory, projections: [ScreenFlowProjection(), failing])
        defer { engine.close() }

        try await ProjectionFixtures.onboard(engine, id: "good", steps: 1)  // sequences 1, 2
        try await ProjectionFixtures.onboard(engine, id: "bad", steps: 3)  // 3, 4, 5 (start), 6
        try await ProjectionFixtures.onboard(engine, id: "late", steps: 1)  // 7, 8
        let head = try engine.store.headSequence()
        #expect(head == 8, "every append succeeded")
        #expect(
            try engine.projectionStatus(named: "rewind.screen-flows")
                == ProjectionStatus(
                    name: "rewind.screen-flows", version: 1, checkpoint: 8))
        #expect(try engine.screenFlows.flow(of: SessionID("bad"))?.configuration == ["home"])

        let status = try #require(try engine.projectionStatus(named: failing.name))
        #expect(status.checkpoint == 4)
        #expect(status.failure?.sequence == 5)
        #expect(status.failure?.session.rawValue == "bad")
        #expect(status.failure?.reason == "refusing this record on purpose")
        let reader = engine.reader(for: failing)
        #expect(try reader.states() == ["good": 2, "bad": 2])

        // Catching up with the bug still there fails again, at the same record.
        let error = #expect(throws: ProjectionError.self) { try engine.catchUpProjections() }
        #expect(
            error
                == .applyFailed(
                    projection: failing.name, sequence: 5, session: SessionID("bad"),
                    cause: ErrorCause(EventCountProjection.Failure())))
        #expect(error?.description.contains("'test.event-counts'") == true)
        #expect(error?.description.contains("sequence 5") == true)
        #expect(try engine.projectionStatus(named: failing.name)?.checkpoint == 4)

        // Fixed: it continues from there, and inline again afterwards.
        failing.failOn.withValue { $0 = nil }
        failing.applied.withValue { $0 = 0 }
        try engine.catchUpProjections()
        #expect(failing.applied.current == 4, "records 5 to 8 only")
        #expect(try reader.states() == ["good": 2, "bad": 4, "late": 2])
        try await ProjectionFixtures.onboard(engine, id: "after", steps: 2)
        #expect(
            try engine.projectionStatus(named: failing.name)
                == ProjectionStatus(
                    name: failing.name, version: 1, checkpoint: 11))
        #expect(try reader.state(forKey: "after") == 3)
    }

    @Test func aProjectionFailingWhileCatchingUpKeepsWhatCameBefore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try TransitionStore(directory: directory.path)
        for index in 0..<5 {
            try store.append(
                [
                    ProjectionFixtures.transition(event: "go", to: "a", at: 1),
                    ProjectionFixtures.transition(event: "stop", to: "b", at: 2),
                ],
                to: try SessionID("s\(index)"))
        }
        store.close()
        let engine = try Engine(directory: directory.path, configuration: ProjectionFixtures.configuration())
        defer { engine.close() }
        let failing = EventCountProjection()
        failing.failOn.withValue { $0 = (session: "s3", event: "stop") }
        #expect(
            throws: ProjectionError.applyFailed(
                projection: failing.name, sequence: 8, session: SessionID("s3"),
                cause: ErrorCause(EventCountProjection.Failure()))
        ) {
            try engine.register(failing)
        }
        #expect(engine.registeredProjections == [failing.name])
        #expect(try engine.projectionStatus(named: failing.name)?.checkpoint == 7)
        #expect(try engine.reader(for: failing).states() == ["s0": 2, "s1": 2, "s2": 2, "s3": 1])
        failing.failOn.withValue { $0 = nil }
        try engine.catchUpProjections()
        #expect(try engine.reader(for: failing).states() == ["s0": 2, "s1": 2, "s2": 2, "s3": 2, "s4": 2])
    }

    @Test func anUnreadableStoredStateStopsTheProjectionAtTheRecordThatReadsIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(in: directory, projections: [EventCountProjection()])
        defer { engine.close() }
        try await ProjectionFixtures.onboard(engine, id: "a", steps: 0)  // sequence 1
        try engine.writableStore.write {
            try $0.put([0xFF], forKey: Array("test.event-counts\0a".utf8), in: .projections)
        }
        try await ProjectionFixtures.onboard(engine, id: "b", steps: 0)  // 2: another key, fine
        try await engine.session("a").send("launch")  // 3: reads the broken state
        let status = try #require(try engine.projectionStatus(named: "test.event-counts"))
        #expect(status.checkpoint == 2)
        #expect(status.failure?.sequence == 3 && status.failure?.session.rawValue == "a")
        #expect(status.failure?.reason.contains("is corrupted") == true)
        #expect(try engine.store.headSequence() == 3)
    }

    // MARK: Versions and reopening

    @Test func aVersionBumpRebuildsTheProjection() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let engine = try ProjectionFixtures.engine(in: directory, projections: [EventCountProjection()])
            try await ProjectionFixtures.onboard(engine, id: "a", steps: 3)
            try await ProjectionFixtures.onboard(engine, id: "b", steps: 1)
            #expect(try engine.reader(for: EventCountProjection()).states() == ["a": 4, "b": 2])
            engine.close()
        }
        let bumped = EventCountProjection(version: 2, keysByMachine: true)
        let engine = try ProjectionFixtures.engine(in: directory, projections: [bumped])
        defer { engine.close() }
        #expect(bumped.applied.current == 6, "rebuilt from the first record")
        #expect(try engine.reader(for: bumped).states() == ["machine:onboarding": 6], "the version 1 states are gone")
        #expect(
            try engine.projectionStatus(named: bumped.name)
                == ProjectionStatus(
                    name: bumped.name, version: 2, checkpoint: 6))
    }

    @Test func reopeningKeepsCheckpointsAndAppliesOnlyNewRecords() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let engine = try ProjectionFixtures.engine(in: directory, projections: [EventCountProjection()])
            try await ProjectionFixtures.onboard(engine, id: "a", steps: 3)
            engine.close()
        }
        do {
            let counting = EventCountProjection()
            let engine = try ProjectionFixtures.engine(in: directory, projections: [counting])
            #expect(counting.applied.current == 0)
            #expect(try engine.projectionStatus(named: counting.name)?.checkpoint == 4)
            engine.close()
        }
        // Another writer appends while no engine runs the projection.
        let store = try TransitionStore(directory: directory.path)
        try store.append([ProjectionFixtures.transition(event: "go", to: "a", at: 1)], to: SessionID("b"))
        try store.append([ProjectionFixtures.transition(event: "go", to: "a", at: 2)], to: SessionID("a"))
        store.close()
        let counting = EventCountProjection()
        let engine = try ProjectionFixtures.engine(in: directory, projections: [counting])
        defer { engine.close() }
        #expect(counting.applied.current == 2)
        #expect(try engine.reader(for: counting).states() == ["a": 5, "b": 1])
    }

    // MARK: Reading

    /// Two session ids equal as Swift `String`s but different in bytes (a precomposed and a
    /// decomposed accent) are two sessions and two states; reading every state keeps both.
    @Test func readingEveryStateKeepsKeysEqualAsStringsButDifferentInBytes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(
            in: directory, projections: [ScreenFlowProjection(), NavigationProjection(), EventCountProjection()])
        defer { engine.close() }
        try await ProjectionFixtures.onboard(engine, id: "café", steps: 1)
        try await ProjectionFixtures.onboard(engine, id: "cafe\u{301}", steps: 2)
        var keys: [[UInt8]] = []
        try engine.reader(for: EventCountProjection()).forEachState { key, _ in
            keys.append(Array(key.utf8))
            return .next
        }
        #expect(keys.count == 2)

        let counts = try engine.reader(for: EventCountProjection()).states()
        #expect(counts.count == 2)
        #expect(counts[ProjectionKey("café")] == 2 && counts[ProjectionKey("cafe\u{301}")] == 3)
        let flows = try engine.screenFlows.all()
        #expect(flows.count == 2)
        #expect(flows[ProjectionKey("café")]?.configuration == ["greeting"])
        #expect(flows[ProjectionKey("cafe\u{301}")]?.configuration == ["login"])
        #expect(try engine.navigationStacks.all().count == 2)
    }

    // MARK: Registration

    @Test func namesAreUniqueAndValid() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try ProjectionFixtures.engine(in: directory, projections: [ScreenFlowProjection()])
        defer { engine.close() }
        #expect(throws: ProjectionError.alreadyRegistered("rewind.screen-flows")) {
            try engine.register(ScreenFlowProjection())
        }
        #expect(throws: ProjectionError.invalidName("")) { try engine.register(EventCountProjection(name: "")) }
        #expect(throws: ProjectionError.invalidName("a\0b")) { try engine.register(EventCountProjection(name: "a\0b")) }
        #expect(throws: ProjectionError.notRegistered("nope")) { try engine.rebuildProjection(named: "nope") }
        #expect(engine.registeredProjections == ["rewind.screen-flows"])
    }
}
