import Rewind
import RewindTestSupport
import Testing

@testable import RewindViewer

/// ``StatechartDiagram/transitionIndex(event:source:target:)`` on the records of real sessions:
/// the seeds' scenarios run by the engine.
struct TransitionMatchingTests {
    /// The records of one session of `scenario`, every request of it made in turn.
    static func records(of scenario: ExampleScenario) async throws -> [TransitionRecord] {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try scenario.machine()])
        defer { engine.close() }
        let session = try await scenario.begin("s", in: engine)
        for request in scenario.steps + scenario.continuation { try await session.run(request) }
        return try engine.store.records(of: session.id)
    }

    static var definitions: [String: MachineDefinition] {
        Dictionary(
            uniqueKeysWithValues: ExampleScenario.all.compactMap { scenario in
                (try? scenario.machine()).map { (scenario.name, $0.definition) }
            })
    }

    @Test(arguments: ExampleScenario.all)
    func everyRecordedStepFindsTheTransitionItTook(_ scenario: ExampleScenario) async throws {
        let definition = try #require(Self.definitions[scenario.name])
        let diagram = StatechartDiagram(definition)
        let records = try await Self.records(of: scenario)
        #expect(records.count > 2)
        for record in records {
            let index = diagram.transitionIndex(event: record.event, source: record.source, target: record.target)
            if record.event == StepRecording.startEvent || record.source.isEmpty {
                #expect(index == nil, "\(record.event)")
                continue
            }
            let found = try #require(index, "\(scenario.name) v\(record.version) \(record.event): no transition")
            let transition = diagram.transitions[found]
            #expect(record.source.contains(transition.source), "\(record.event) from \(transition.source)")
            if record.event == Machine.enterEventName {
                #expect(transition.kind == .directMove && record.target.contains(transition.targets[0]))
            } else {
                #expect(transition.matches(event: record.event), "\(record.event) ≠ \(transition.events)")
            }
        }
    }

    @Test func theMatchIsTheTransitionTheMachineTook() async throws {
        let browser = StatechartDiagram(ExampleMachines.Browser.definition)
        let records = try await Self.records(of: try #require(ExampleScenario.all.first { $0.name == "browser" }))
        func taken(_ event: String) -> [DiagramTransition] {
            records.filter { $0.event == event }.compactMap {
                browser.transitionIndex(event: $0.event, source: $0.source, target: $0.target).map {
                    browser.transitions[$0]
                }
            }
        }
        #expect(taken("openSettings").map(\.source) == ["browse", "browse"])
        #expect(taken("closeSettings").map(\.targets) == [["browse.history"], ["browse.history"]])
        #expect(taken("back").map(\.source) == ["postComments"])

        // Guards choose between two transitions on one event: the targets that became active decide.
        let statekit = StatechartDiagram(ExampleMachines.StateKit.definition)
        let error = try #require(
            statekit.transitionIndex(
                event: "apiRespondedError", source: ["root", "loading"], target: ["root", "errorView"]))
        #expect(statekit.transitions[error].source == "root" && statekit.transitions[error].targets == ["errorView"])

        let media = StatechartDiagram(HierarchicalMachine.definition)
        let password = ["app", "auth", "signIn", "password"]
        let guarded = try #require(
            media.transitionIndex(
                event: "submit", source: password, target: ["app", "auth", "signIn", "twoFactor"]))
        #expect(media.transitions[guarded].targets == ["twoFactor"])
        let plain = try #require(
            media.transitionIndex(
                event: "submit", source: password, target: ["app", "main", "content", "home", "player", "stopped"]))
        #expect(media.transitions[plain].targets == ["main"])
        // `error.*` matches `error.network`; a deeper source wins over an ancestor's transition.
        let failure = try #require(
            media.transitionIndex(
                event: "error.network", source: ["app", "main", "content", "home", "player", "stopped"],
                target: ["app", "error"]))
        #expect(media.transitions[failure].source == "main")
        let home = try #require(
            media.transitionIndex(
                event: "home", source: ["app", "main", "content", "search", "query", "player", "paused"],
                target: ["app", "main", "content", "home", "player", "paused"]))
        #expect(media.transitions[home].source == "search")
        // Nothing drawn for the start, a migration or an unknown event.
        #expect(media.transitionIndex(event: StepRecording.startEvent, source: [], target: ["app", "splash"]) == nil)
        #expect(
            media.transitionIndex(
                event: StepRecording.migrateEvent, source: ["app", "splash"], target: ["app", "splash"]) == nil)
        #expect(media.transitionIndex(event: "nothing", source: ["app", "splash"], target: ["app", "splash"]) == nil)
    }
}
