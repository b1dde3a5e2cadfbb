import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Errors are typed and specific, and a refused request writes nothing.
struct EngineErrorTests {
    typealias Onboarding = ExampleMachines.Onboarding

    struct Unencodable: Encodable {
        struct Refusal: Error {}
        func encode(to encoder: any Encoder) throws { throw Refusal() }
    }

    struct RefusingCoder: PayloadCoder {
        struct Refusal: Error {}
        func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] { throw Refusal() }
        func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value { throw Refusal() }
    }

    @Test func unknownSession() throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        #expect(throws: EngineError.unknownSession(SessionID("nobody"))) { try engine.session("nobody") }
        #expect(throws: StoreError.self) { try engine.session("") }
    }

    @Test func unknownMachine() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        var engine = try fixture.open(registering: [try Onboarding.machine()])
        await #expect(throws: EngineError.unknownMachine("map")) {
            try await engine.startSession(id: "user", machine: "map")
        }
        #expect(try engine.store.headSequence() == 0)
        _ = try await engine.startSession(id: "user", machine: "onboarding")
        engine.close()
        // Resuming a session whose machine is not registered with this engine.
        engine = try fixture.open(registering: [])
        defer { engine.close() }
        #expect(throws: EngineError.unknownMachine("onboarding")) { try engine.session("user") }
    }

    @Test func sessionExists() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        _ = try await engine.startSession(id: "user", machine: "onboarding")
        let id = SessionID("user")
        await #expect(throws: EngineError.sessionExists(id)) {
            try await engine.startSession(id: "user", machine: "onboarding")
        }
        #expect(throws: EngineError.sessionExists(id)) { try engine.makeSession(id: id, machine: "onboarding") }
        #expect(try engine.store.headSequence() == 1)
    }

    @Test func twoUnstartedSessionsOfOneIDConflictOnTheFirstEntry() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.Kanji.machine()])
        defer { engine.close() }
        let id = SessionID("kanji")
        let first = try engine.makeSession(id: id, machine: "kanji")
        let second = try engine.makeSession(id: id, machine: "kanji")
        try await first.enter("all")
        await #expect(throws: StoreError.versionConflict(session: id, expected: .noStream, actual: 1)) {
            try await second.enter("all")
        }
        #expect(try engine.store.headSequence() == 1)
    }

    @Test func anotherDefinitionUnderARegisteredNameIsRefused() throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        #expect(throws: EngineError.machineAlreadyRegistered("onboarding")) {
            try engine.register(try ExampleMachines.Map.machine(), as: "onboarding")
        }
        try engine.register(try Onboarding.machine())
        try engine.register(try ExampleMachines.Map.machine(), as: "map-too")
        #expect(engine.machine(named: "map-too")?.definition.name == "map")
    }

    @Test func unencodablePayloadWritesNothing() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine(), try ExampleMachines.Kanji.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        let snapshot = session.snapshot
        do {
            try await session.send(Onboarding.Event.launch, payload: Unencodable())
            Issue.record("sending an unencodable payload should throw")
        } catch let EngineError.payloadEncoding(event, _) {
            #expect(event == "launch")
        }
        let kanji = try engine.makeSession(id: SessionID("kanji"), machine: "kanji")
        do {
            try await kanji.enter(ExampleMachines.Kanji.State.all, data: Unencodable())
            Issue.record("entering with unencodable data should throw")
        } catch let EngineError.payloadEncoding(event, _) {
            #expect(event == StepRecording.enterEvent)
        }
        #expect(session.snapshot == snapshot)
        #expect(kanji.version == 0)
        #expect(try engine.store.headSequence() == 1)
    }

    @Test func aFailingPayloadCoderWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = EngineConfiguration(durability: .noSync)
        configuration.store.coder = RefusingCoder()
        let engine = try Engine(directory: directory.path, configuration: configuration)
        defer { engine.close() }
        try engine.register(try Onboarding.machine())
        await #expect(throws: EngineError.self) {
            try await engine.startSession(id: "user", machine: "onboarding", context: ["plan": "free"])
        }
        #expect(try engine.store.headSequence() == 0)
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        do {
            try await session.send("launch", payload: ["source": "push"])
            Issue.record("a payload the coder refuses should throw")
        } catch let EngineError.payloadEncoding(event, _) {
            #expect(event == "launch")
        }
        #expect(session.version == 1)
        #expect(try engine.store.headSequence() == 1)
    }

    @Test func aCorruptedSnapshotIsSkippedAndTheSessionIsRebuiltFromItsRecords() async throws {
        let fixture = try EngineFixture(snapshotInterval: 2)
        defer { fixture.remove() }
        let machine = try Onboarding.machine()
        var engine = try fixture.open(registering: [machine])
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        try await session.send("launch")
        try await session.send("start")
        try await session.send("loggedIn")
        let live = session.snapshot
        // Version 4's snapshot is garbage, version 2's names another version: both are passed over.
        try engine.writableStore.write { transaction in
            try transaction.put(Array("{not json".utf8), forKey: StoreKey.compound("user", 4), in: .snapshots)
            var wrong = live
            wrong.version = 3
            try transaction.put(try wrong.encoded(), forKey: StoreKey.compound("user", 2), in: .snapshots)
        }
        engine.close()
        engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        let resumed = try engine.session("user")
        #expect(resumed.snapshot.state == live.state)
        #expect(resumed.snapshot.navigation == live.navigation)
        #expect(resumed.version == 4)
    }

    @Test func openingADirectoryThatIsNotAStoreIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("notes".utf8).write(to: directory.url.appendingPathComponent("notes.txt"))
        #expect {
            try Engine(directory: directory.path)
        } throws: { error in
            guard case StoreError.notAStore(let path, _, _) = error else { return false }
            return path == directory.path
        }
    }

    @Test func errorDescriptionsNameWhatFailedAndWhere() throws {
        let id = SessionID("user-42")
        #expect(EngineError.unknownSession(id).description.contains("user-42"))
        #expect(EngineError.unknownMachine("map").description.contains("map"))
        let mismatch = EngineError.definitionMismatch(session: id, machine: "map", recorded: "aaaa", registered: "bbbb")
        #expect(mismatch.description.contains("user-42") && mismatch.description.contains("aaaa"))
        let divergence = EngineError.replayDivergence(
            session: id, version: 7, event: "go", recorded: ["a"], computed: ["b"])
        #expect(divergence.description.contains("version 7") && divergence.description.contains("go"))
    }
}
