import Rewind
import RewindExamples
import RewindTestSupport
import Testing

@Suite("Verify against a machine")
struct SessionVerificationTests {
    static let navigation = Dictionary(
        uniqueKeysWithValues: ExampleMachines.Onboarding.navigation.map { ($0.key.rawValue, $0.value) })

    @Test func everyExampleSessionIsCleanAgainstItsOwnMachine() async throws {
        let fixture = try ReplayFixture()
        let ids = try await fixture.recordAllExamples()
        for (id, machine) in zip(ids, try ReplayFixture.exampleMachines()) {
            let report = try fixture.engine.verify(id, against: machine)
            #expect(report.isClean, "\(report)")
            #expect(report.verifiedRecords == (try fixture.engine.store.sessionInfo(for: id))?.headVersion)
        }
    }

    @Test func verifyCatchesAChangedTransitionTarget() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("onboarding", as: "o")
        typealias Onboarding = ExampleMachines.Onboarding
        var routes = Onboarding.routes
        routes[1] = Route(from: Onboarding.Screen.greeting, to: .home, by: Onboarding.Event.start)
        let changed = try Machine(
            MachineDefinition(
                name: "onboarding", initial: "initial", routes: routes, navigation: Self.navigation))
        let report = try fixture.engine.verify(SessionID("o"), against: changed)
        let divergence = try #require(report.divergence)
        #expect(divergence.version == 3)
        #expect(divergence.event == "start")
        #expect(divergence.source == ["greeting"])
        #expect(divergence.kind == .targetMismatch(recorded: ["login"], computed: ["home"]))
        #expect(report.verifiedRecords == 2)
        #expect(report.definition == changed.definition.contentVersion)
    }

    @Test func verifyCatchesARemovedEvent() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("onboarding", as: "o")
        let routes = Array(ExampleMachines.Onboarding.routes.dropLast())
        let changed = try Machine(
            MachineDefinition(
                name: "onboarding", initial: "initial", routes: routes, navigation: Self.navigation))
        let report = try fixture.engine.verify(SessionID("o"), against: changed)
        let divergence = try #require(report.divergence)
        #expect(divergence.version == 4)
        #expect(divergence.event == "loggedIn")
        #expect(divergence.kind == .rejected(.invalidTransition(from: ["login"], event: "loggedIn")))
        #expect(!report.isClean)
    }

    @Test func verifyCatchesChangedNavigation() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("onboarding", as: "o")
        typealias Onboarding = ExampleMachines.Onboarding
        let changed = try Machine(
            MachineDefinition(
                name: "onboarding", initial: "initial", routes: Onboarding.routes,
                navigation: ["greeting": .setRoot(), "login": .replace(), "home": .setRoot()]))
        let divergence = try #require(try fixture.engine.verify(SessionID("o"), against: changed).divergence)
        #expect(divergence.version == 3)
        #expect(divergence.kind == .navigationMismatch(recorded: [.push("login")], computed: [.replace("login")]))
    }

    @Test func verifyingEverySessionOfAMachineReportsEachOne() async throws {
        let fixture = try ReplayFixture()
        try await fixture.record("onboarding", as: "o1")
        let short = try await fixture.engine.startSession(id: "o2", machine: "onboarding")
        try await short.send("launch")
        try await fixture.record("statekit", as: "s")
        let routes = Array(ExampleMachines.Onboarding.routes.dropLast())
        let changed = try Machine(
            MachineDefinition(
                name: "onboarding", initial: "initial", routes: routes, navigation: Self.navigation))
        let reports = try fixture.engine.verifySessions(of: "onboarding", against: changed)
        #expect(reports.map(\.session.rawValue) == ["o1", "o2"])
        #expect(reports.map(\.isClean) == [false, true])
        #expect(reports.map(\.verifiedRecords) == [3, 2])
    }
}
