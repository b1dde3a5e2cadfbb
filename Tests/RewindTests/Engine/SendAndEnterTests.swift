import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Sending events and entering states: what is recorded, and that a refused request writes nothing.
struct SendAndEnterTests {
    typealias Onboarding = ExampleMachines.Onboarding
    typealias Kanji = ExampleMachines.Kanji
    typealias LoadingView = ExampleMachines.LoadingView

    @Test func invalidEventThrowsAndWritesNothing() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        try await session.send(Onboarding.Event.launch)
        let headBefore = try engine.store.headSequence()
        let snapshotBefore = session.snapshot

        await #expect(throws: MachineError.invalidTransition(from: ["greeting"], event: "loggedIn")) {
            try await session.send(Onboarding.Event.loggedIn)
        }
        #expect(try engine.store.headSequence() == headBefore)
        #expect(try engine.store.sessionInfo(for: session.id)?.headVersion == 2)
        #expect(session.snapshot == snapshotBefore)
        // The session still works afterwards.
        try await session.send(Onboarding.Event.start)
        #expect(session.configuration == ["login"])
        #expect(try engine.store.headSequence() == headBefore + 1)
    }

    @Test func recordsCarryMachineDefinitionEventPayloadConfigurationsAndNavigation() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let machine = try Onboarding.machine()
        let engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding", context: ["plan": "free"])
        try await session.send("launch", payload: ["source": "push"])
        try await session.send(Onboarding.Event.start)

        let records = try engine.store.records(of: session.id)
        try #require(records.count == 3)
        let coder = JSONPayloadCoder()
        for record in records {
            #expect(record.machine == "onboarding")
            #expect(record.definition == machine.definition.contentVersion)
        }
        #expect(records.map(\.event) == [StepRecording.startEvent, "launch", "start"])
        #expect(records.map(\.version) == [1, 2, 3])
        #expect(records.map(\.source) == [[], ["initial"], ["greeting"]])
        #expect(records.map(\.target) == [["initial"], ["greeting"], ["login"]])
        #expect(records.map(\.navigation) == [[], [.setRoot("greeting")], [.push("login")]])
        #expect(try coder.decode(JSONValue.self, from: records[0].payload) == ["plan": "free"])
        #expect(try coder.decode(JSONValue.self, from: records[1].payload) == ["source": "push"])
        #expect(records[2].payload.isEmpty)
        #expect(session.navigationStack.screens == ["greeting", "login"])
        // The definition named by the records is stored, by name and content version.
        #expect(
            try engine.storedDefinition(name: "onboarding", version: records[0].definition)?.contentVersion
                == machine.definition.contentVersion)
    }

    @Test func typedEventsCarryCodablePayloadsIntoStateData() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try LoadingView.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "screen", machine: "loading-view")
        let model = LoadingView.Model(title: "Inbox", items: ["one", "two"])
        let step = try await session.send(LoadingView.Event.loaded, payload: model)
        #expect(step.target == ["ready"])
        #expect(try session.state.data(of: "ready", as: LoadingView.Model.self) == model)
        let record = try #require(try engine.store.records(of: session.id).last)
        #expect(try JSONPayloadCoder().decode(LoadingView.Model.self, from: record.payload) == model)
        #expect(
            try JSONPayloadCoder().decode([String: LoadingView.Model].self, from: record.stateData) == ["ready": model])
    }

    @Test func enterMovesToValidNextStatesWithDataAndRefusesOthersWritingNothing() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Kanji.machine()])
        defer { engine.close() }
        let session = try engine.makeSession(id: SessionID("kanji"), machine: "kanji")
        #expect(session.version == 0)
        #expect(session.canEnter("all"))
        try await session.enter(Kanji.State.all)
        #expect(session.canEnter(Kanji.State.detail.rawValue))
        #expect(!session.canEnter(Kanji.State.list.rawValue))

        await #expect(throws: MachineError.cannotEnter(from: ["all"], to: "list")) {
            try await session.enter(Kanji.State.list)
        }
        #expect(try engine.store.headSequence() == 1)
        #expect(session.version == 1)

        let sun = Kanji.Character(character: "日", meanings: ["sun", "day"])
        try await session.enter(Kanji.State.detail, data: sun)
        #expect(session.configuration == ["detail"])
        #expect(try session.state.data(of: "detail", as: Kanji.Character.self) == sun)
        #expect(session.navigationStack.screens == ["all", "detail"])

        let records = try engine.store.records(of: session.id)
        #expect(records.map(\.event) == [StepRecording.enterEvent, StepRecording.enterEvent])
        let payload = try JSONPayloadCoder().decode(JSONValue.self, from: records[1].payload)
        #expect(payload["state"] == "detail")
        #expect(try payload["data"]?.decode(Kanji.Character.self) == sun)
    }

    @Test func eventsNamedLikeTheEnginesReservedEventsAreRefusedAndWriteNothing() async throws {
        // A machine may well have an event called "enter"; recorded as is, it would read back as a
        // direct move and the session could not be resumed.
        let keypad = try Machine(
            MachineDefinition("keypad") {
                StateNode("pin") { On("enter", to: "unlocked") }
                StateNode("unlocked")
            })
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        var engine = try fixture.open(registering: [keypad])
        let session = try await engine.startSession(id: "door", machine: "keypad")
        for name in [StepRecording.enterEvent, StepRecording.startEvent] {
            await #expect(throws: EngineError.reservedEventName(name)) { try await session.send(name) }
        }
        #expect(session.version == 1)
        #expect(try engine.store.headSequence() == 1)
        engine.close()
        engine = try fixture.open(registering: [keypad])
        defer { engine.close() }
        #expect(try engine.session("door").configuration == ["pin"])
    }
}
