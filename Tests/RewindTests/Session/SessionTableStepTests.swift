import Foundation
@_spi(Internals) import RewindStore
import RewindTestSupport
import Testing

@testable import Rewind
@testable import RewindMachine

/// Sessions whose machine reads steps from its table of precomputed outcomes (inside
/// `Machine.send`, the session's one evaluation entry point) against sessions whose machine runs
/// the SCXML algorithm for every event (`Machine.withoutPrecomputedSteps()`): seeded random walks over the example machines and a
/// chart using every dynamic feature, with valid, invalid, reserved and payload-carrying events,
/// direct moves with data, bulk sends, and hooks registered or not, run on two engines side by
/// side, must give the same steps and errors, versions, states and navigation, hook calls in the
/// same order with the same arguments, the same records byte for byte (time aside) and the same
/// snapshots.
struct SessionTableStepTests {
    /// A machine to walk and the events to draw from.
    struct Subject {
        var name: String
        var machine: Machine
        var events: [Event]
        var context: JSONValue = .null
    }

    /// One hook call, with its arguments.
    enum HookCall: Hashable {
        case willTransition(StateChange)
        case willExit(String, StateChange)
        case transition(Microstep)
        case didEnter(String, StateChange)
        case didTransition(StateChange)
    }

    /// What one request gave: its steps or its error.
    enum Outcome: Equatable {
        case steps([Step])
        case failure(String)
    }

    // MARK: Machines

    static var mixed: MachineDefinition { MixedFeatureChart.definition(delayedSend: false) }
    static var mixedBindings: Bindings { MixedFeatureChart.bindings }

    /// Every event descriptor of `definition`, an extension of a few (`a.x`), unknown names, the
    /// engine's reserved names and a few events with payloads.
    static func vocabulary(of definition: MachineDefinition) -> [Event] {
        let names = definition.eventNames
        var events = names.map { Event($0) }
        events += names.prefix(2).map { Event($0 + ".x") }
        events += [Event("unknown"), Event(StepRecording.enterEvent), Event(StepRecording.startEvent)]
        events += names.prefix(3).map { Event($0, payload: ["note": .string("payload of \($0)")]) }
        return events
    }

    static func subjects() throws -> [Subject] {
        var subjects: [Subject] = []
        func add(_ name: String, _ machine: Machine, context: JSONValue = .null) {
            subjects.append(
                Subject(
                    name: name, machine: machine, events: vocabulary(of: machine.definition), context: context))
        }
        typealias Examples = ExampleMachines
        add("onboarding", try Examples.Onboarding.machine())
        add("map", try Examples.Map.machine())
        add("kanji", try Examples.Kanji.machine())
        add("statekit", try Examples.StateKit.machine())
        add("loading-view", try Examples.LoadingView.machine())
        add("browser", try Examples.Browser.machine())
        add("upload", try Examples.Upload.machine())
        add(
            "onboarding (ignoring unhandled)",
            try Machine(
                Examples.Onboarding.definition, options: Machine.Options(unhandledEvents: .ignore)))
        for policy in [Machine.UnhandledEventPolicy.reject, .ignore] {
            add(
                "mixed (\(policy))",
                try Machine(
                    mixed, bindings: mixedBindings, options: Machine.Options(unhandledEvents: policy)),
                context: .object(["count": .number(0)]))
        }
        return subjects
    }

    // MARK: Walks

    /// A session under test, its engine and what its hooks saw.
    struct Side {
        let engine: Engine
        let session: Session
        let calls: LockedBox<[HookCall]>
    }

    /// Starts session `id` of `subject` on `engine`, its hooks (when wanted) registered before its
    /// first entry.
    static func start(_ id: String, of subject: Subject, on engine: Engine, hooks: Bool) async throws -> Side {
        let calls = LockedBox<[HookCall]>([])
        let session = try await engine.startSession(
            id: id, machine: subject.machine.definition.name, context: subject.context
        ) { session in
            guard hooks else { return }
            session.onWillTransition { calls.append(.willTransition($0)) }
            session.onDidTransition { calls.append(.didTransition($0)) }
            session.onTransition { calls.append(.transition($0)) }
            for id in subject.machine.stateIDs {
                session.onWillExit(id) { calls.append(.willExit(id, $0)) }
                session.onDidEnter(id) { calls.append(.didEnter(id, $0)) }
            }
        }
        return Side(engine: engine, session: session, calls: calls)
    }

    /// What `request` gives on `side`.
    static func run(_ request: (Session) async throws -> [Step], on side: Side) async -> Outcome {
        do {
            return .steps(try await request(side.session))
        } catch {
            return .failure(String(describing: error))
        }
    }

    /// `record` without its time, encoded as the store encodes it.
    static func bytes(of record: TransitionRecord) -> [UInt8] {
        var record = record
        record.timestamp = Timestamp(microsecondsSince1970: 0)
        return RecordCodec.encode(record)
    }

    /// The snapshot stored for `version`, without its time (`nil` when none is stored).
    static func snapshot(at version: UInt64, of side: Side) throws -> SessionSnapshot? {
        let key = SessionSnapshot.key(session: side.session.id, version: version)
        guard let bytes = try side.engine.store.read({ try $0.value(forKey: key, in: .snapshots) }) else {
            return nil
        }
        var snapshot = try bytes.withUnsafeBytes { try SessionSnapshot.decode($0, session: side.session.id) }
        snapshot.timestamp = nil
        return snapshot
    }

    /// Whether a session in `state` takes `event` from the machine's table (a move, an ignored
    /// event or a refused one), not from the general `send`.
    static func isFromTable(_ event: Event, in state: MachineState, of machine: Machine) -> Bool {
        if StepRecording.isReserved(event.name) { return false }
        var probe = state
        do {
            return try machine.precomputedMicrosteps(
                event, in: &probe, rejectUnhandled: machine.options.unhandledEvents == .reject) != nil
        } catch {
            return true
        }
    }

    /// Compares everything `general` and `fast` stored: the records byte for byte (time aside),
    /// the snapshots, and the session each resumes to.
    static func compareStores(of general: Side, _ fast: Side, _ context: String) throws {
        let expectedRecords = try general.engine.store.records(of: general.session.id).map(bytes(of:))
        let records = try fast.engine.store.records(of: fast.session.id).map(bytes(of:))
        #expect(records == expectedRecords, "\(context): records")
        for version in stride(from: UInt64(3), through: general.session.version, by: 3) {
            let expectedSnapshot = try snapshot(at: version, of: general)
            #expect(expectedSnapshot != nil, "\(context): snapshot \(version)")
            #expect(try snapshot(at: version, of: fast) == expectedSnapshot, "\(context): snapshot \(version)")
        }
        let resumed = try fast.engine.session(fast.session.id)
        #expect(resumed.state == general.session.state && resumed.version == general.session.version, "\(context)")
    }

    /// Walks `subject` for `requests` requests on a general and a table-reading session (a new
    /// pair each time the machine finishes); returns how many sends the fast side took from the
    /// table.
    @discardableResult
    static func walk(_ subject: Subject, seed: UInt64, requests: Int, hooks: Bool) async throws -> Int {
        var random = SeededRandom(seed: seed)
        let generalFixture = try EngineFixture(snapshotInterval: 3)
        let fastFixture = try EngineFixture(snapshotInterval: 3)
        defer {
            generalFixture.remove()
            fastFixture.remove()
        }
        let generalEngine = try generalFixture.open(registering: [subject.machine.withoutPrecomputedSteps()])
        let fastEngine = try fastFixture.open(registering: [subject.machine])
        defer {
            generalEngine.close()
            fastEngine.close()
        }
        let machine = subject.machine
        var fromTable = 0
        var round = 0
        var general = try await start("walk-0", of: subject, on: generalEngine, hooks: hooks)
        var fast = try await start("walk-0", of: subject, on: fastEngine, hooks: hooks)

        for index in 0..<requests {
            let context = "\(subject.name), seed \(seed), hooks \(hooks), request \(index)"
            let state = general.session.state
            if state.isFinished {
                try compareStores(of: general, fast, context)
                round += 1
                let id = "walk-\(round)"
                general = try await start(id, of: subject, on: generalEngine, hooks: hooks)
                fast = try await start(id, of: subject, on: fastEngine, hooks: hooks)
                continue
            }
            let request: (Session) async throws -> [Step]
            let description: String
            let targets = machine.validNextStates(in: state)
            if random.chance(0.1), !targets.isEmpty {
                // A direct move, with data or without.
                let target = targets[Int(random.next() % UInt64(targets.count))]
                let data: JSONValue = random.chance(0.5) ? .string("data of \(target)") : .null
                description = "enter \(target)"
                request = { [try await $0.enter(target, data: data)] }
            } else if random.chance(0.15) {
                // A bulk send of a few events (a refused one fails them all).
                let count = 1 + Int(random.next() % 5)
                let events = (0..<count).map { _ in subject.events[Int(random.next() % UInt64(subject.events.count))] }
                description = "send(contentsOf: \(events.map(\.name)))"
                request = { try await $0.send(contentsOf: events) }
            } else {
                let event = subject.events[Int(random.next() % UInt64(subject.events.count))]
                description = "send \(event.name)"
                if isFromTable(event, in: state, of: machine) { fromTable += 1 }
                request = { [try await $0.send(event)] }
            }
            let expected = await run(request, on: general)
            let outcome = await run(request, on: fast)
            #expect(outcome == expected, "\(context): \(description)")
            #expect(fast.session.version == general.session.version, "\(context): \(description)")
            #expect(fast.session.state == general.session.state, "\(context): \(description)")
            #expect(fast.session.navigationStack == general.session.navigationStack, "\(context): \(description)")
            #expect(fast.calls.current == general.calls.current, "\(context): \(description)")
            if outcome != expected { break }
        }
        try compareStores(of: general, fast, "\(subject.name), seed \(seed), hooks \(hooks)")
        return fromTable
    }

    @Test(arguments: [false, true])
    func tableStepsGiveTheGeneralStepsRecordsSnapshotsHooksAndErrors(hooks: Bool) async throws {
        var fromTable = 0
        for (position, subject) in try Self.subjects().enumerated() {
            for seed in [UInt64(1), 2, 3] {
                fromTable += try await Self.walk(
                    subject, seed: seed &* 7919 &+ UInt64(position), requests: 80, hooks: hooks)
            }
        }
        // The walks must exercise the fast path, not only the fallback.
        #expect(fromTable > 300, "only \(fromTable) steps were read from the table")
    }
}
