import Rewind
import RewindTestSupport
import Testing

@Suite("Play a recorded session")
struct ReplayPlayerTests {
    @Test func playFiresTheHooksInTheRecordedOrderAndWritesNothing() async throws {
        let fixture = try ReplayFixture()
        let engine = fixture.engine
        for script in ReplayFixture.scripts {
            let recorded = EventLog()
            let id = "\(script.machine)-1"
            try await fixture.record(script.machine, as: id) { session in
                recorded.register(
                    on: session.machine, onDidEnter: session.onDidEnter, onWillExit: session.onWillExit,
                    onDidTransition: session.onDidTransition)
            }
            #expect(!recorded.entries.isEmpty)

            let head = try engine.store.headSequence()
            let sessions = try engine.sessions()
            let played = EventLog()
            let player = try engine.player(for: try SessionID(id))
            let machine = try #require(engine.machine(named: script.machine))
            played.register(
                on: machine, onDidEnter: player.onDidEnter, onWillExit: player.onWillExit,
                onDidTransition: player.onDidTransition)
            let count = try player.play()
            #expect(count == script.requests.count + (script.starts ? 1 : 0))
            #expect(played.entries == recorded.entries, "\(script.machine)")
            #expect(try player.playNext() == nil)

            #expect(try engine.store.headSequence() == head)
            #expect(try engine.sessions() == sessions)
        }
    }

    @Test func playingStopsAtAVersionAndSkippingFiresNothing() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("browser", as: "b")
        let player = try fixture.engine.player(for: SessionID("b"))
        let log = EventLog()
        player.onDidTransition { change in log.append("\(change.event?.name ?? "start") → \(change.to)") }

        #expect(try player.play(through: 3) == 3)
        #expect(player.version == 3)
        #expect(log.entries.count == 3)
        #expect(player.snapshot.navigation.screens == ["feedList", "post", "postComments"])

        try player.skip(to: 6)
        #expect(log.entries.count == 3)
        #expect(player.snapshot.state.configuration == ["app", "browse", "feed", "post", "postBody"])
        let step = try #require(try player.playNext())
        #expect(step.event?.name == "close")
        #expect(log.entries.last == "close → [\"feedList\"]")
        #expect(throws: ReplayError.versionOutOfRange(session: SessionID("b"), requested: 20, head: 9)) {
            try player.play(through: 20)
        }
    }

    @Test func handingOverContinuesLiveAsAForkWithTheSameHooks() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("onboarding", as: "o")
        let engine = fixture.engine
        let original = try engine.store.read { try $0.records(of: SessionID("o")) }
        let player = try engine.player(for: SessionID("o"))
        let log = EventLog()
        player.onDidEnter("home") { _ in log.append("home") }
        player.onDidEnter("login") { _ in log.append("login") }
        try player.play(through: 3)
        #expect(log.entries == ["login"])

        let live = try await player.handOver(as: SessionID("o-live"))
        #expect(live.version == 3 && live.configuration == ["login"])
        try await live.send("loggedIn")
        #expect(log.entries == ["login", "home"])

        let info = try #require(try engine.store.sessionInfo(for: SessionID("o-live")))
        #expect(info.headVersion == 4)
        #expect(info.origin == RecordOrigin(session: SessionID("o"), version: 3))
        #expect(try engine.store.read { try $0.records(of: SessionID("o")) } == original)
    }

    @Test func handingOverBeforeAnyRecordStartsAnEmptySession() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("onboarding", as: "o")
        let player = try fixture.engine.player(for: "o")
        let log = EventLog()
        player.onDidEnter("initial") { _ in log.append("initial") }
        let live = try await player.handOver(as: SessionID("fresh"))
        #expect(live.version == 0)
        #expect(try fixture.engine.store.sessionInfo(for: SessionID("fresh")) == nil)
        try await live.enter("initial")
        #expect(log.entries == ["initial"])
        #expect(try fixture.engine.store.sessionInfo(for: SessionID("fresh"))?.origin == nil)
    }
}
