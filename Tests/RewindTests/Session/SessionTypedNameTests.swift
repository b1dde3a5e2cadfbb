import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Hooks and requests take the app's own name enums and `Encodable` payloads as well as plain
/// strings and `JSONValue`s, and record exactly what the plain forms record.
struct SessionTypedNameTests {
    typealias Onboarding = ExampleMachines.Onboarding
    typealias Kanji = ExampleMachines.Kanji

    struct Source: Codable, Equatable {
        var source: String
    }

    /// The payloads of the session's records, decoded (`null` for an empty one).
    func payloads(of session: Session, in engine: Engine) throws -> [JSONValue] {
        try engine.store.records(of: session.id).map { record in
            record.payload.isEmpty ? .null : try JSONPayloadCoder().decode(JSONValue.self, from: record.payload)
        }
    }

    @Test func hooksTakeTheAppsStateEnum() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let seen = LockedBox<[String]>([])
        let session = try await engine.startSession(id: "user", machine: "onboarding") { session in
            session.onDidEnter(Onboarding.Screen.greeting) { change in
                seen.append("enter greeting from \(change.from ?? [])")
            }
            session.onWillExit(Onboarding.Screen.greeting) { change in seen.append("exit greeting to \(change.to)") }
            session.onUpdate(Onboarding.Screen.login) { delta in seen.append("update login \(delta)") }
        }
        try await session.send(Onboarding.Event.launch)
        try await session.send(Onboarding.Event.start)
        await session.update(deltaTime: 0.5)
        #expect(
            seen.current == [
                "enter greeting from [\"initial\"]", "exit greeting to [\"login\"]", "update login 0.5",
            ])
        #expect(session.canEnter(Onboarding.Screen.home) == session.canEnter("home"))
    }

    @Test func sendContentsOfTakesPlainAndTypedNames() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let plain = try await engine.startSession(id: "plain", machine: "onboarding")
        let plainSteps = try await plain.send(contentsOf: ["launch", "start"])
        let names: [String] = ["loggedIn"]
        try await plain.send(contentsOf: names)
        let typed = try await engine.startSession(id: "typed", machine: "onboarding")
        let typedSteps = try await typed.send(contentsOf: [Onboarding.Event.launch, .start, .loggedIn])

        #expect(plainSteps.map(\.target) == [["greeting"], ["login"]])
        #expect(typedSteps.map(\.target) == [["greeting"], ["login"], ["home"]])
        #expect(try engine.store.records(of: plain.id).map(\.event) == ["rewind.start", "launch", "start", "loggedIn"])
        #expect(try engine.store.records(of: typed.id).map(\.event) == ["rewind.start", "launch", "start", "loggedIn"])
    }

    @Test func encodablePayloadsGoWithPlainAndTypedNames() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        try await session.send("launch", payload: Source(source: "push"))
        try await session.send(Onboarding.Event.start, payload: Source(source: "button"))
        try await session.send("loggedIn", payload: ["source": "json"] as JSONValue)
        #expect(
            try payloads(of: session, in: engine) == [
                .null, ["source": "push"], ["source": "button"], ["source": "json"],
            ])
    }

    @Test func setNeedsTransitionTakesTypedNamesAndEncodablePayloads() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding") { session in
            session.onDidEnter(Onboarding.Screen.greeting) { _ in
                do {
                    try session.setNeedsTransition(Onboarding.Event.start, payload: Source(source: "hook"))
                } catch {
                    Issue.record("the payload should encode: \(error)")
                }
            }
            session.onDidEnter(Onboarding.Screen.login) { _ in session.setNeedsTransition(Onboarding.Event.loggedIn) }
        }
        try await session.send(Onboarding.Event.launch)
        // The queued requests ran before `send` returned.
        #expect(session.configuration == ["home"])
        #expect(try payloads(of: session, in: engine) == [.null, .null, ["source": "hook"], .null])
        #expect(session.deferredErrors.isEmpty)
    }

    /// A literal payload is a `JSONValue`: it takes the non-throwing overloads (these calls
    /// compile without `try`), and is recorded as the string it is. An `Encodable` value still
    /// takes the encoding overloads.
    @Test func aLiteralPayloadTakesTheNonThrowingOverload() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding") { session in
            session.onDidEnter(Onboarding.Screen.greeting) { _ in
                session.setNeedsTransition("start", payload: "offline")
            }
            session.onDidEnter(Onboarding.Screen.login) { _ in
                session.setNeedsTransition(Onboarding.Event.loggedIn, payload: ["attempt": 2])
            }
        }
        try await session.send(Onboarding.Event.launch, payload: "cold")
        #expect(session.configuration == ["home"])
        #expect(try payloads(of: session, in: engine) == [.null, "cold", "offline", ["attempt": 2]])
        #expect(session.deferredErrors.isEmpty)
    }

    @Test func directMovesTakeTypedStatesAndEncodableData() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Kanji.machine()])
        defer { engine.close() }
        let sun = Kanji.Character(character: "日", meanings: ["sun", "day"])
        let session = try engine.makeSession(id: "reader", machine: "kanji")
        try await session.enter(Kanji.State.all)
        #expect(session.canEnter(Kanji.State.detail))
        try await session.enter("detail", data: sun)
        #expect(session.configuration == ["detail"])
        #expect(session.snapshot.state.data["detail"] == (try JSONValue(encoding: sun)))
        try await session.enter(Kanji.State.all)
        let session2 = session
        let moved = LockedBox<[String]>([])
        session.onDidEnter(Kanji.State.detail) { change in moved.append(change.to.joined()) }
        session.onDidEnter(Kanji.State.all) { _ in
            do {
                try session2.setNeedsTransition(to: Kanji.State.detail, data: sun)
            } catch {
                Issue.record("the data should encode: \(error)")
            }
        }
        try await session.enter(Kanji.State.detail, data: sun)
        try await session.enter(Kanji.State.list, data: Kanji.Word(word: "日本"))
        try await session.enter(Kanji.State.all)
        #expect(moved.current == ["detail", "detail"])
        #expect(session.configuration == ["detail"])
        #expect(session.snapshot.state.data["detail"] == (try JSONValue(encoding: sun)))
    }

    @Test @MainActor func theModelSendsEncodablePayloadsWithPlainAndTypedNames() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let model = SessionModel(session: try await engine.startSession(id: "user", machine: "onboarding"))
        try await model.send("launch", payload: Source(source: "push"))
        try await model.send(Onboarding.Event.start, payload: Source(source: "button"))
        #expect(model.activeStates == ["login"])
        #expect(try payloads(of: model.session, in: engine) == [.null, ["source": "push"], ["source": "button"]])
    }
}
