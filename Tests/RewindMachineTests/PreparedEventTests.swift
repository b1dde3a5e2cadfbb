import Foundation
import RewindBaseTestSupport
import RewindExamples
import RewindMachineTestSupport
import Testing

@testable import RewindMachine

/// Prepared events (``Machine/prepare(_:)`` and the in-place `send`), the general `send`'s
/// precomputed steps, the in-place `send` of the recorders and a machine without precomputed steps against
/// the SCXML algorithm itself: seeded random walks over every example machine, the benchmarks'
/// machines, a chart using every dynamic feature and the SCXML conformance documents must give
/// the same state after every event, the same errors, and the same steps (exits, entries,
/// navigation).
struct PreparedEventTests {
    /// A machine to walk and the events to draw from.
    struct Subject {
        var name: String
        var machine: Machine
        var events: [Event]
        var context: JSONValue = .null
    }

    // MARK: Machines

    /// The benchmarks' machines (Benchmarks/Sources/BenchmarkMachines/BenchMachines.swift).
    static var flat: MachineDefinition {
        MachineDefinition("onboarding-cycle") {
            StateNode("initial") { On("launch", to: "greeting") }
            StateNode("greeting", navigation: .setRoot()) { On("start", to: "login") }
            StateNode("login", navigation: .push()) { On("loggedIn", to: "home") }
            StateNode("home", navigation: .setRoot()) { On("logout", to: "greeting") }
        }
    }

    static var hierarchical: MachineDefinition {
        MachineDefinition("hierarchical") {
            StateNode("app", initial: "main") {
                StateNode("main", initial: "feed") {
                    StateNode("feed") { On("open", to: "detail") }
                    StateNode("detail")
                    On("back", to: "feed")
                }
                StateNode("settings")
                On("settings", to: "settings")
                On("home", to: "main")
            }
        }
    }

    static var parallel: MachineDefinition {
        MachineDefinition("parallel") {
            ParallelNode("player") {
                StateNode("playback", initial: "paused") {
                    StateNode("paused") { On("play", to: "playing") }
                    StateNode("playing") { On("pause", to: "paused") }
                }
                StateNode("volume", initial: "normal") {
                    StateNode("normal") { On("mute", to: "muted") }
                    StateNode("muted") { On("unmute", to: "normal") }
                }
            }
        }
    }

    static var mixed: MachineDefinition { MixedFeatureChart.definition(delayedSend: true) }
    static var mixedBindings: Bindings { MixedFeatureChart.bindings }

    /// Every event descriptor of `definition`, with an extension of each (`a.x`), an unknown
    /// name, and a few events with payloads.
    static func vocabulary(of definition: MachineDefinition) -> [Event] {
        let names = definition.eventNames
        var events = names.map { Event($0) }
        events += names.prefix(3).map { Event($0 + ".x") }
        events += [Event("unknown"), Event("unknown.too")]
        events += names.prefix(2).map { Event($0, payload: .string("payload")) }
        return events
    }

    static func subjects() throws -> [Subject] {
        var subjects: [Subject] = []
        func add(
            _ name: String, _ definition: MachineDefinition, bindings: Bindings = Bindings(), context: JSONValue = .null
        ) throws {
            for policy in [Machine.UnhandledEventPolicy.reject, .ignore] {
                let machine = try Machine(
                    definition, bindings: bindings, options: Machine.Options(unhandledEvents: policy))
                subjects.append(
                    Subject(
                        name: "\(name) (\(policy))", machine: machine, events: vocabulary(of: definition),
                        context: context))
            }
        }
        try add("onboarding", ExampleMachines.Onboarding.definition)
        try add("map", ExampleMachines.Map.definition)
        try add("kanji", ExampleMachines.Kanji.definition)
        try add("statekit", ExampleMachines.StateKit.definition)
        try add("loading-view", ExampleMachines.LoadingView.definition)
        try add("browser", ExampleMachines.Browser.definition)
        try add("upload", ExampleMachines.Upload.definition)
        try add("bench flat", flat)
        try add("bench hierarchical", hierarchical)
        try add("bench parallel", parallel)
        try add("mixed", mixed, bindings: mixedBindings, context: .object(["count": .number(0)]))
        return subjects
    }

    // MARK: Walks

    /// What one walk saw.
    struct WalkCounts {
        var sends = 0
        /// Successful sends of events with a column of their own (see ``PreparedEvent/isPrecomputed``).
        var eligible = 0
        var precomputed = 0
    }

    /// Walks `subject` for `steps` events, sending each through both APIs and comparing.
    @discardableResult
    static func walk(_ subject: Subject, seed: UInt64, steps: Int) throws -> WalkCounts {
        let machine = subject.machine
        let algorithm = machine.withoutPrecomputedSteps()
        var random = SeededRandom(seed: seed)
        let prepared = subject.events.map { machine.prepare($0) }
        var general = try machine.start(context: subject.context).state
        var fast = general
        var counts = WalkCounts()
        for _ in 0..<steps {
            // Now and then: restart a finished machine, hand the general state over (a stale or
            // missing hint), or make a direct move with data (so that exits must drop data).
            if general.isFinished, random.chance(0.5) {
                general = try machine.start(context: subject.context).state
                fast = general
                continue
            }
            if random.chance(0.05) {
                fast = general
            }
            if random.chance(0.1), !general.isFinished {
                let targets = machine.validNextStates(in: general)
                if !targets.isEmpty {
                    let target = targets[Int(random.next() % UInt64(targets.count))]
                    general = try machine.enter(target, data: .string("data of \(target)"), in: general).state
                    fast = try machine.enter(target, data: .string("data of \(target)"), in: fast).state
                    #expect(fast == general, "\(subject.name): enter \(target)")
                    continue
                }
            }

            let choice = Int(random.next() % UInt64(prepared.count))
            let event = subject.events[choice]
            let before = random.chance(0.5) ? fast : nil  // a copy shares the storage: no in-place write
            // The algorithm itself, then the public `send` (which may read a precomputed step).
            let generalResult: Result<Step, MachineError>
            do {
                generalResult = .success(
                    try machine.send(
                        event, in: general, now: .zero, rejectUnhandled: machine.options.unhandledEvents == .reject,
                        allowPrecomputed: false))
            } catch let error as MachineError {
                generalResult = .failure(error)
            }
            let publicResult: Result<Step, MachineError>
            do {
                publicResult = .success(try machine.send(event, in: general))
            } catch let error as MachineError {
                publicResult = .failure(error)
            }
            #expect(publicResult == generalResult, "\(subject.name), seed \(seed), event \(event.name)")
            // The recorders' in-place `send` (the table's step sharing the state's arrays): the same
            // step and errors, the state changed to the step's (untouched on error); and a machine
            // without precomputed steps gives the same too.
            var inPlace = general
            do {
                let step = try machine.send(event, in: &inPlace, now: .zero)
                #expect(.success(step) == publicResult, "\(subject.name), seed \(seed), in place \(event.name)")
                #expect(inPlace == step.state, "\(subject.name), seed \(seed), in place \(event.name)")
            } catch let error as MachineError {
                #expect(.failure(error) == publicResult, "\(subject.name), seed \(seed), in place \(event.name)")
                #expect(inPlace == general, "\(subject.name), seed \(seed), in place \(event.name)")
            }
            let withoutTable: Result<Step, MachineError>
            do {
                withoutTable = .success(try algorithm.send(event, in: general))
            } catch let error as MachineError {
                withoutTable = .failure(error)
            }
            #expect(withoutTable == generalResult, "\(subject.name), seed \(seed), without table \(event.name)")
            let fastResult: Result<StepSummary, MachineError>
            do {
                fastResult = .success(try machine.send(prepared[choice], in: &fast))
            } catch let error as MachineError {
                fastResult = .failure(error)
            }
            counts.sends += 1
            let context = "\(subject.name), seed \(seed), event \(event.name), in \(general.configuration)"
            switch (generalResult, fastResult) {
            case (.success(let step), .success(let summary)):
                #expect(fast == step.state, "\(context)")
                #expect(fast.configuration == step.state.configuration, "\(context)")
                #expect(machine.navigation(of: summary) == step.navigation, "\(context)")
                #expect(machine.exited(of: summary) == step.exited, "\(context)")
                #expect(machine.entered(of: summary) == step.entered, "\(context)")
                if let evaluated = summary.evaluatedStep { #expect(evaluated == step, "\(context)") }
                if prepared[choice].isPrecomputed { counts.eligible += 1 }
                if summary.isPrecomputed { counts.precomputed += 1 }
                general = step.state
            case (.failure(let expected), .failure(let error)):
                #expect(error == expected, "\(context)")
                if let before { #expect(fast == before, "\(context): the state changed on error") }
            default:
                Issue.record("\(context): general \(generalResult), prepared \(fastResult)")
                fast = general
            }
        }
        return counts
    }

    @Test func randomWalksGiveTheGeneralAlgorithmsStatesErrorsAndSteps() throws {
        for (position, subject) in try Self.subjects().enumerated() {
            for seed in 0..<4 {
                try Self.walk(subject, seed: UInt64(position * 100 + seed), steps: 300)
            }
        }
    }

    @Test func theBenchmarkMachinesAndSimpleExamplesArePrecomputedThroughout() throws {
        for definition in [
            Self.flat, Self.hierarchical, Self.parallel, ExampleMachines.Onboarding.definition,
            ExampleMachines.StateKit.definition, ExampleMachines.Upload.definition,
        ] {
            let subject = Subject(
                name: definition.name, machine: try Machine(definition),
                events: Self.vocabulary(of: definition).filter(\.payload.isNull))
            let counts = try Self.walk(subject, seed: 11, steps: 400)
            #expect(counts.eligible > 0)
            #expect(counts.precomputed == counts.eligible, "\(definition.name): \(counts)")
        }
    }

    @Test func dynamicFeaturesFallBackToTheGeneralAlgorithm() throws {
        let subject = try Self.subjects().first { $0.name == "mixed (reject)" }
        let machine = try #require(subject).machine
        var state = try machine.start(context: .object(["count": .number(0)])).state
        // A named guard (then an eventless one, back to `a`): evaluated.
        let guarded = try machine.send(machine.prepare("guarded"), in: &state)
        #expect(guarded.evaluatedStep != nil)
        #expect(machine.entered(of: guarded) == ["c", "a"])
        // A custom action: evaluated, and the context changed as the general algorithm does.
        let counted = try machine.send(machine.prepare("count"), in: &state)
        #expect(counted.evaluatedStep?.state.context == .object(["count": .number(1)]))
        #expect(state.context == .object(["count": .number(1)]))
        // A plain move: precomputed.
        let next = try machine.send(machine.prepare("next"), in: &state)
        #expect(next.isPrecomputed)
        #expect(state.configuration == ["top", "b"])
        #expect(machine.navigation(of: next) == [.replace("b")])
        #expect(machine.exited(of: next) == ["a"])
        #expect(machine.entered(of: next) == ["b"])
        // An `In()` guard depends on the configuration only: precomputed.
        #expect(try machine.send(machine.prepare("check"), in: &state).isPrecomputed)
        #expect(state.configuration == ["top", "a"])
        // A payload: evaluated (it becomes data).
        #expect(!machine.prepare("next", payload: .number(1)).isPrecomputed)
        // An ignored event: unchanged, precomputed.
        let ignored = try machine.send(machine.prepare("noise"), in: &state)
        #expect(ignored.isPrecomputed)
        #expect(machine.navigation(of: ignored).isEmpty)
    }

    @Test func anUnhandledEventThrowsTheGeneralErrorAndLeavesTheStateAlone() throws {
        let machine = try Machine(Self.hierarchical)
        var state = try machine.start().state
        let before = state
        #expect(throws: MachineError.invalidTransition(from: ["app", "main", "feed"], event: "nothing")) {
            try machine.send(machine.prepare("nothing"), in: &state)
        }
        #expect(state == before)
        var unstarted = MachineState()
        #expect(throws: MachineError.notStarted) { try machine.send(machine.prepare("open"), in: &unstarted) }
    }

    @Test func aPreparedEventOfAnotherMachineTakesTheGeneralAlgorithm() throws {
        let machine = try Machine(Self.flat)
        let other = try Machine(Self.flat)
        var state = try machine.send(Event("launch"), in: machine.start().state).state
        let summary = try machine.send(other.prepare("start"), in: &state)
        #expect(summary.evaluatedStep != nil)
        #expect(state.configuration == ["login"])
        // The machine's copies share its table.
        let copy = machine
        #expect(try copy.send(machine.prepare("loggedIn"), in: &state).isPrecomputed)
        #expect(state.configuration == ["home"])
    }

    @Test func aStaleHintIsCheckedBeforeUse() throws {
        let machine = try Machine(Self.hierarchical)
        var state = try machine.start().state
        try machine.send(machine.prepare("open"), in: &state)  // the hint now names [app, main, detail]
        #expect(state.configuration == ["app", "main", "detail"])
        state.configuration = ["app", "settings"]  // changed behind the hint's back
        try machine.send(machine.prepare("home"), in: &state)
        #expect(state.configuration == ["app", "main", "feed"])
        state.configuration = ["app", "nowhere"]
        #expect(throws: MachineError.unknownState("nowhere")) { try machine.send(machine.prepare("home"), in: &state) }
    }

    @Test func historyMemoryWithUnknownStatesIsRejectedAsTheGeneralAlgorithmDoes() throws {
        let machine = try Machine(Self.hierarchical)
        var state = try machine.start().state
        try machine.send(machine.prepare("open"), in: &state)  // with a hint
        state.history = ["nowhere": ["feed"]]
        #expect(throws: MachineError.unknownState("nowhere")) { try machine.send(Event("back"), in: state) }
        #expect(throws: MachineError.unknownState("nowhere")) { try machine.send(machine.prepare("back"), in: &state) }
    }

    @Test func theHintTakesNoPartInEqualityHashingOrCoding() throws {
        let machine = try Machine(Self.flat)
        let started = try machine.send(Event("launch"), in: machine.start().state).state
        var hinted = started
        try machine.send(machine.prepare("start"), in: &hinted)
        try machine.send(machine.prepare("loggedIn"), in: &hinted)
        try machine.send(machine.prepare("logout"), in: &hinted)
        #expect(hinted.configurationHint.row >= 0)
        var plain = started
        plain.configurationHint = ConfigurationHint()
        #expect(hinted == plain)
        #expect(hinted.hashValue == plain.hashValue)
        #expect(try hinted.encoded() == plain.encoded())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let codable = try encoder.encode(hinted)
        #expect(codable == (try plain.encoded()))
        #expect(try JSONDecoder().decode(MachineState.self, from: codable) == hinted)
    }

    /// 50 compound states of 5 children each, with 20 transitions on the root: more probes than a
    /// table runs, so some entries are left dynamic; walks must not tell the difference.
    @Test func aChartBeyondTheProbeBudgetWalksTheSame() throws {
        let parents = (0..<50).map { parent in
            StateDefinition(
                id: "p\(parent)",
                children: (0..<5).map { child in
                    StateDefinition(
                        id: "p\(parent)c\(child)",
                        transitions: [
                            TransitionDefinition(events: ["y\(child)"], targets: ["p\(parent)c\((child + 1) % 5)"])
                        ])
                },
                transitions: [TransitionDefinition(events: ["x\(parent % 10)"], targets: ["p\((parent + 1) % 50)"])])
        }
        let root = StateDefinition(
            id: "root", children: parents,
            transitions: (0..<20).map { TransitionDefinition(events: ["g\($0)"], targets: ["p\($0 * 2)"]) })
        let definition = MachineDefinition(name: "large", states: [root])
        let machine = try Machine(definition)
        let kinds = Set(machine.preparedTable.entries.map(\.kind))
        #expect(kinds.contains(.dynamic))
        #expect(kinds.contains(.move))
        let counts = try Self.walk(
            Subject(name: "large", machine: machine, events: Self.vocabulary(of: definition)), seed: 5, steps: 400)
        #expect(counts.precomputed > 0)
        #expect(counts.precomputed < counts.eligible)
    }

    @Test func conformanceDocumentsWalkTheSameThroughBothAPIs() throws {
        var walked = 0
        let documents = ConformanceCases.documents()
        for url in documents {
            guard let definition = try? MachineDefinition(scxmlFileAt: url) else { continue }
            for policy in [Machine.UnhandledEventPolicy.ignore, .reject] {
                guard let machine = try? Machine(definition, options: Machine.Options(unhandledEvents: policy)),
                    (try? machine.start()) != nil
                else { continue }
                let subject = Subject(
                    name: "\(url.lastPathComponent) (\(policy))", machine: machine,
                    events: Self.vocabulary(of: definition))
                try Self.walk(subject, seed: UInt64(walked), steps: 60)
                walked += 1
            }
        }
        if !documents.isEmpty { #expect(walked > 10) }
    }
}
