import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Recorded sessions as literals (`LogReplay.recordedSession`, `SessionArchive.recordedSession`)
/// played back on the app's machine (`RecordedSession.play(on:)`): the checkout fixture's
/// sessions, recorded under its redaction policy on a real store.
struct RecordedSessionTests {
    /// Runs `body` on an engine opened on a new store holding the fixture's two sessions.
    func withFixtureStore(_ body: (Engine) async throws -> Void) async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-recorded")
        defer { directory.remove() }
        try await RecordedSessionFixture.record(in: directory.path)
        let engine = try Engine(directory: directory.path, configuration: EngineConfiguration(durability: .noSync))
        defer { engine.close() }
        try await body(engine)
    }

    static func recordedMachine() throws -> Machine {
        try Machine(RecordedSessionFixture.definition(), bindings: RecordedSessionFixture.bindings)
    }

    static func divergingMachine() throws -> Machine {
        try Machine(RecordedSessionFixture.definition(diverging: true), bindings: RecordedSessionFixture.bindings)
    }

    @Test func aSessionPlaysBackOnTheDefinitionItWasRecordedWith() async throws {
        try await withFixtureStore { engine in
            let session = try engine.replay().recordedSession("order-1")
            #expect(session.id == "order-1")
            #expect(session.machine == "checkout")
            #expect(session.steps.map(\.version) == Array(1...6))
            #expect(session.steps.map(\.event) == ["rewind.start", "open", "add", "checkout", "submit", "pay"])
            #expect(session.steps.map(\.at) == [0, 1500, 3000, 4500, 6000, 7500])
            #expect(session.steps[1].payload == #"{"price":12.5,"sku":"mug-1"}"#)
            #expect(session.steps[1].stateData == #"{"item":{"price":12.5,"sku":"mug-1"}}"#)
            #expect(
                session.steps[1].navigation
                    == #"[{"data":null,"screen":"cart"},{"data":{"price":12.5,"sku":"mug-1"},"screen":"item"}]"#)
            #expect(session.steps[3].configuration == ["address"])
            let playback = try session.play(on: try Self.recordedMachine())
            #expect(playback.mismatch == nil, "\(playback)")
            #expect(playback.reproducedVersions == Array(1...6))
            #expect(playback.uncheckedRedactedVersions.isEmpty)
        }
    }

    @Test func aDivergingDefinitionFailsAtTheFirstVersionItDoesNotReproduceNamingSessionAndVersion() async throws {
        try await withFixtureStore { engine in
            let session = try engine.replay().recordedSession("order-1")
            let playback = try session.play(on: try Self.divergingMachine())
            let mismatch = try #require(playback.mismatch)
            #expect(mismatch.version == 3)
            #expect(mismatch.event == "add")
            #expect(mismatch.differences.contains(.configuration(recorded: ["cart"], computed: ["address"])))
            #expect(playback.reproducedVersions == [1, 2])
            #expect(
                mismatch.description.hasPrefix("session 'order-1' version 3 (event 'add'): configuration: recorded"))
            // The other session never adds an item: the diverging definition reproduces it.
            let other = try engine.replay().recordedSession("order-2").play(on: try Self.divergingMachine())
            #expect(other.mismatch == nil, "\(other)")
        }
    }

    @Test func stateDataAndTheNavigationStackAreCheckedAfterEveryVersion() async throws {
        try await withFixtureStore { engine in
            let session = try engine.replay().recordedSession("order-1")
            var wrongData = session
            wrongData.steps[1].stateData = #"{"item":{"price":13,"sku":"mug-1"}}"#
            let data = try #require(try wrongData.play(on: try Self.recordedMachine()).mismatch)
            #expect(data.version == 2)
            #expect(
                data.differences == [
                    .stateData(
                        recorded: #"{"item":{"price":13,"sku":"mug-1"}}"#,
                        computed: #"{"item":{"price":12.5,"sku":"mug-1"}}"#)
                ])
            var wrongStack = session
            wrongStack.steps[3].navigation = #"[{"data":null,"screen":"cart"}]"#
            let stack = try #require(try wrongStack.play(on: try Self.recordedMachine()).mismatch)
            #expect(stack.version == 4)
            guard case .navigation(_, let computed) = stack.differences.first else {
                Issue.record("expected a navigation difference: \(stack)")
                return
            }
            #expect(computed == #"[{"data":null,"screen":"cart"},{"data":null,"screen":"address"}]"#)
        }
    }

    @Test func aRedactedStepTheMachineCannotReproduceIsNotRecheckedAndPlaybackGoesOnFromItsRecordedState() async throws
    {
        try await withFixtureStore { engine in
            // order-2's address had no post code (undeliverable); the store recorded it as the
            // marker, from which the guard would say deliverable.
            let session = try engine.replay().recordedSession("order-2")
            let submit = try #require(session.steps.first { $0.event == "submit" })
            #expect(submit.redacted)
            #expect(submit.recordedState != nil)
            #expect(submit.payload.contains(RedactionRule.markerText))
            let playback = try session.play(on: try Self.recordedMachine())
            #expect(playback.mismatch == nil, "\(playback)")
            #expect(playback.uncheckedRedactedVersions == [submit.version])
            #expect(!playback.stoppedAtRedaction)
            #expect(playback.description.contains("version 5: redacted: cannot be re-checked"))
            // order-1's post code was marked too, but the marker is deliverable as well: reproduced.
            let first = try engine.replay().recordedSession("order-1")
            #expect(first.steps[4].redacted)
            #expect(first.steps[4].recordedState == nil)
        }
    }

    @Test func aRedactedStepWithoutARecordedStateEndsPlaybackWithoutFailing() async throws {
        try await withFixtureStore { engine in
            var session = try engine.replay().recordedSession("order-1")
            session.steps[2].redacted = true
            let playback = try session.play(on: try Self.divergingMachine())
            #expect(playback.mismatch == nil)
            #expect(playback.uncheckedRedactedVersions == [3])
            #expect(playback.stoppedAtRedaction)
            #expect(playback.reproducedVersions == [1, 2])
        }
    }

    @Test func redactedValuesNeverAppearInTheLiterals() async throws {
        try await withFixtureStore { engine in
            let sessions = try ["order-1", "order-2"].map { try engine.replay().recordedSession(SessionID($0)) }
            let text = SessionTestSource(
                sessions: sessions, imports: ["App"], machineExpression: "try App.machine()"
            ).text
            for secret in RecordedSessionFixture.secrets { #expect(!text.contains(secret)) }
            // Paths given when the test is written: the item's sku, in the payload and the data.
            let redacted = try engine.replay().recordedSession(
                "order-1", redacting: [try RedactionRule("payload.sku"), try RedactionRule("data.*.sku")])
            let redactedText = SessionTestSource(
                sessions: [redacted], imports: ["App"], machineExpression: "try App.machine()"
            ).text
            #expect(!redactedText.contains("mug-1"))
            #expect(redacted.steps[1].redacted)
            #expect(!redacted.steps[3].redacted)
            // The machine does not read the sku: the redacted session still plays back clean.
            let playback = try redacted.play(on: try Self.recordedMachine())
            #expect(playback.mismatch == nil, "\(playback)")
        }
    }

    @Test func anArchiveGivesTheSameLiteralsAsTheStore() async throws {
        try await withFixtureStore { engine in
            for id in ["order-1", "order-2"] {
                let archive = try engine.exportSession(SessionID(id))
                #expect(
                    try SessionArchive.recordedSession(archive) == (try engine.replay().recordedSession(SessionID(id))))
            }
            // A damaged archive is the archive's typed error, naming the line.
            var damaged = try engine.exportSession("order-1")
            damaged.removeLast(20)
            #expect(throws: SessionArchiveError.self) { try SessionArchive.recordedSession(damaged) }
        }
    }

    @Test func malformedLiteralsAreTypedErrorsNamingSessionVersionAndField() throws {
        let good = RecordedSession.Step(
            version: 1, event: "rewind.start", at: 0, payload: "null", configuration: ["cart"], stateData: "{}",
            navigation: #"[{"screen":"cart"}]"#)
        var badPayload = good
        badPayload.payload = "{"
        var badData = good
        badData.stateData = "[]"
        var badStack = good
        badStack.navigation = #"[{"data":1}]"#
        var badState = good
        badState.recordedState = #"{"configuration":7}"#
        let cases: [(RecordedSession.Step, String)] = [
            (badPayload, "its payload is not JSON"), (badData, "its state data is not a JSON object"),
            (badStack, "its navigation stack"), (badState, "its recorded state"),
        ]
        for (step, reason) in cases {
            let session = RecordedSession(id: "bug-17", machine: "checkout", startedAt: 0, steps: [step])
            let error = try #require(throws: RecordedSessionError.self) {
                try session.play(on: try Self.recordedMachine())
            }
            #expect(error.session == "bug-17")
            #expect(error.version == 1)
            #expect(error.description.contains("recorded session 'bug-17' version 1: \(reason)"), "\(error)")
        }
        #expect(
            try RecordedSession(id: "bug-17", machine: "checkout", startedAt: 0, steps: [good])
                .play(on: try Self.recordedMachine()).mismatch == nil)
    }

    @Test func anEventTheMachineRejectsIsAMismatchNotAnError() throws {
        let session = RecordedSession(
            id: "bug-18", machine: "checkout", startedAt: 0,
            steps: [
                .init(
                    version: 1, event: "rewind.start", at: 0, payload: "null", configuration: ["cart"], stateData: "{}",
                    navigation: #"[{"screen":"cart"}]"#),
                .init(
                    version: 2, event: "teleport", at: 10, payload: "null", configuration: ["done"], stateData: "{}",
                    navigation: #"[{"screen":"done"}]"#),
            ])
        let mismatch = try #require(try session.play(on: try Self.recordedMachine()).mismatch)
        #expect(mismatch.version == 2)
        guard case .rejected = mismatch.differences.first else {
            Issue.record("expected a rejection: \(mismatch)")
            return
        }
    }

    @Test func aMigratedSessionIsWrittenFromItsLastMigrationAndPlaysOnTheNewDefinition() async throws {
        func flow(reminding: Bool) -> MachineDefinition {
            MachineDefinition("flow") {
                StateNode("list", navigation: .setRoot()) {
                    On(
                        "open", to: "detail",
                        actions: reminding ? [.send(event: "remind", delay: .milliseconds(3_600_000))] : [])
                }
                StateNode("detail", navigation: .push()) { On("back", to: "list") }
            }
        }
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        do {
            let engine = try fixture.open(registering: [try Machine(flow(reminding: false))])
            defer { engine.close() }
            let session = try await engine.startSession(id: "user", machine: "flow")
            try await session.send("open", payload: ["item": 1])
            try await session.send("back")
        }
        let newMachine = try Machine(flow(reminding: true))
        let engine = try fixture.open(registering: [newMachine])
        defer { engine.close() }
        let session = try engine.session("user", policy: .replayWithRegistered)
        try await session.send("open", payload: ["item": 2])
        try await session.send("back")
        let recorded = try engine.replay().recordedSession("user")
        #expect(recorded.steps.map(\.event) == [StepRecording.migrateEvent, "open", "back"])
        #expect(recorded.steps.map(\.version) == [4, 5, 6])
        let playback = try recorded.play(on: newMachine)
        #expect(playback.mismatch == nil, "\(playback)")
        #expect(playback.reproducedVersions == [4, 5, 6])
    }
}
