import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// A seeded differential fuzz of the live session against every way of rebuilding it.
///
/// Each seed picks a machine (every example, the mixed-feature chart with its delayed send, and a
/// chart of timers: delayed sends and their cancellation, sends due at the end of time, deep
/// history, parallel regions, direct moves with data, navigation), a snapshot interval (1, 2, 3,
/// 7, 64) and how far session entries may lag the log, then walks the session at random: valid
/// and invalid events (with and without payloads, awkward JSON among them, reserved names), bulk
/// sends, direct moves, requests queued from hooks (`setNeedsTransition`), clock advances with
/// `deliverDueSends()`, reloads, engine close + reopen (sometimes with another snapshot
/// interval) + resume, and migrations: close + reopen registering a variant definition of the
/// machine (``Variation``: same configurations for every request, other pending sends, context
/// or history memory) or the subject's own again + resume (a strict resume must refuse) with
/// `.replayWithRegistered`, or, every other seed, with the default `.upgradeWhenCompatible`
/// (falling back to `.replayWithRegistered` where a variant's history memory does not fit the
/// other definition), while a neighbour session ticks in the same store. After every step the
/// live `Session.snapshot` (version, definition, state with history memory, context, data and
/// pending sends, navigation stack, time) must equal the session resumed by a second engine on
/// the same store registering the same definition (migrating too while the head record names
/// another one), the `ReplayCursor` seeked to its version and a `ReplayPlayer` skipped there
/// (replay shows the live state of each version: the old definition's at the version of a
/// migration, the new one's after it); a refused request (one the pure machine refuses) must
/// change and write nothing. At the end: seeks to earlier versions against the snapshots
/// recorded live; seeking, stepping and playing agree at every version; seeking to a version's
/// time; `verify` against the registered definition and the subject's own (clean); a fresh
/// engine's resume; export → import into a fresh store → resume; a hand-over and forks at
/// earlier versions (one where the walk migrated), resumed — migrated where that version's
/// record names another definition than the registered one. Replay compiles the stored
/// definitions with the subject's bindings plus the variants' custom action.
///
/// A failure names its seed, step and operation; `REWIND_DIFFERENTIAL_SEEDS=FIRST:COUNT` and
/// `REWIND_DIFFERENTIAL_STEPS` walk other seeds, longer.
struct ResumeReplayDifferentialTests {
    /// A machine to walk: how to build it, how its session begins, what to send and enter.
    struct Subject: Sendable {
        var name: String
        var machine: @Sendable () throws -> Machine
        var opening: StepRecording.Request
        var bindings: Bindings = Bindings()
    }

    /// The chart of timers: delayed sends (re-armed on entry, armed and cancelled by events, one
    /// without a delay), deep history, parallel regions, direct moves (valid next states) with
    /// data, navigation.
    static var timers: MachineDefinition {
        MachineDefinition("timers") {
            StateNode("app", initial: "idle") {
                HistoryNode("app.history", .deep)
                StateNode("idle", navigation: .setRoot(), validNextStates: ["detail", "work"]) {
                    OnEntry(.send(event: "poll", delay: .milliseconds(7), id: "poll"))
                    On("poll", to: "idle")
                    On("start", to: "work")
                    On("arm", actions: [.send(event: "expire", delay: .milliseconds(12), id: "expiry")])
                    On("disarm", actions: [.cancel(sendID: "expiry")])
                    // Sends due in thousands of centuries, and at the end of time.
                    On(
                        "someday",
                        actions: [
                            .send(event: "expire", delay: .milliseconds(1 << 60), id: "far"),
                            .send(event: "expire", delay: .milliseconds(Int.max), id: "never"),
                        ])
                    On("forget", actions: [.cancel(sendID: "far"), .cancel(sendID: "never")])
                    On("expire", to: "detail")
                }
                ParallelNode("work", navigation: .push()) {
                    StateNode("editor", initial: "draft") {
                        StateNode("draft") { On("type", to: "typing") }
                        StateNode("typing") {
                            OnEntry(.send(event: "autosave", delay: .milliseconds(5)))
                            On("autosave", to: "saved")
                            On("type", to: "typing")
                        }
                        StateNode("saved") { On("type", to: "typing") }
                    }
                    StateNode("panel", initial: "closed") {
                        StateNode("closed") { On("toggle", to: "open") }
                        StateNode("open", navigation: .push()) { On("toggle", to: "closed", navigation: .pop) }
                    }
                    On("leave", to: "idle", navigation: .popToRoot)
                    On("settings", to: "settings")
                }
                StateNode("detail", navigation: .push(), validNextStates: ["idle", "work"]) {
                    On("close", to: "idle", navigation: .pop)
                    On("now", actions: [.send(event: "close")])
                    On("arm", actions: [.send(event: "expire", delay: .milliseconds(3), id: "expiry")])
                }
            }
            StateNode("settings", navigation: .push(), validNextStates: ["app", "detail"]) {
                On("back", to: "app.history", navigation: .pop)
            }
        }
    }

    static let subjects: [Subject] = {
        var subjects = ExampleScenario.all.map { Subject(name: $0.name, machine: $0.machine, opening: $0.opening) }
        subjects.append(
            Subject(
                name: "mixed",
                machine: { try Machine(MixedFeatureChart.definition(), bindings: MixedFeatureChart.bindings) },
                opening: .start(context: ["count": 0]), bindings: MixedFeatureChart.bindings))
        subjects.append(
            Subject(
                name: "mixed (ignoring unhandled)",
                machine: {
                    try Machine(
                        MixedFeatureChart.definition(), bindings: MixedFeatureChart.bindings,
                        options: Machine.Options(unhandledEvents: .ignore))
                },
                opening: .start(context: ["count": 1]), bindings: MixedFeatureChart.bindings))
        subjects.append(Subject(name: "timers", machine: { try Machine(timers) }, opening: .start(context: .null)))
        subjects.append(
            Subject(name: "timers", machine: { try Machine(timers) }, opening: .enter(state: "work", data: ["doc": 1])))
        return subjects
    }()

    /// How a variant definition of a walked machine differs from the subject's own: it reaches
    /// the same configurations and navigation for every request (the walk's migrations re-run
    /// every record through it), but computes another state.
    enum Variation: String, CaseIterable, Sendable {
        /// Every transition with an event re-arms a reminder and every atomic state its own one on
        /// entry (delayed `<send>`s with ids): pending sends, due in decades.
        case reminders
        /// Every transition with an event and every state's entry counts itself in the context
        /// (a custom action, bound only in ``ResumeReplayDifferentialTests/variantBindings``).
        case notes
        /// Every compound state without history gains one (deep and shallow in turn), targeted
        /// by nothing: other history memory.
        case history

        /// `definition` varied.
        func apply(to definition: MachineDefinition) -> MachineDefinition {
            var definition = definition
            var histories = 0
            func vary(_ state: StateDefinition) -> StateDefinition {
                var state = state
                guard state.kind != .history else { return state }
                state.children = state.children.map(vary)
                switch self {
                case .reminders:
                    for index in state.transitions.indices where !state.transitions[index].events.isEmpty {
                        state.transitions[index].actions += [
                            .cancel(sendID: "variant.reminder"),
                            .send(event: "variant.reminder", delay: .milliseconds(1 << 40), id: "variant.reminder"),
                        ]
                    }
                    if state.children.isEmpty {
                        state.onEntry += [
                            .cancel(sendID: "variant.\(state.id)"),
                            .send(
                                event: "variant.reminder", delay: .milliseconds((1 << 40) + 1),
                                id: "variant.\(state.id)"),
                        ]
                    }
                case .notes:
                    for index in state.transitions.indices where !state.transitions[index].events.isEmpty {
                        state.transitions[index].actions.append(.custom(ResumeReplayDifferentialTests.noteAction))
                    }
                    state.onEntry.append(.custom(ResumeReplayDifferentialTests.noteAction))
                case .history:
                    // After the children: a compound state without `initial` enters its first child.
                    if state.kind == .state, !state.children.isEmpty,
                        !state.children.contains(where: { $0.kind == .history })
                    {
                        histories += 1
                        state.children.append(
                            StateDefinition(
                                id: "\(state.id).variant-history", kind: .history,
                                history: histories % 2 == 0 ? .shallow : .deep))
                    }
                }
                return state
            }
            definition.states = definition.states.map(vary)
            return definition
        }
    }

    /// The custom action of ``Variation/notes``: counts the steps that ran it in the context.
    static let noteAction = "variant.note"

    /// The subject's bindings and the variants' custom action: replay compiles every stored
    /// definition a session was recorded under with these.
    static func variantBindings(_ subject: Subject) -> Bindings {
        var bindings = subject.bindings
        bindings.actions[noteAction] = { scope in
            scope.context["variant"] = .number((scope.context["variant"]?.doubleValue ?? 0) + 1)
        }
        return bindings
    }

    /// A clock the walk moves by hand.
    final class ManualTime: Sendable {
        private let now = LockedBox(Timestamp(microsecondsSince1970: 1_800_000_000_000_000))
        var clock: @Sendable () -> Timestamp { { [now] in now.current } }
        /// The machine's `now` at the current time (whole milliseconds, as the engine evaluates).
        var machineTime: Duration { .milliseconds(now.current.microsecondsSince1970 / 1000) }
        func advance(microseconds: Int64) { now.withValue { $0.microsecondsSince1970 += microseconds } }
    }

    /// A difference between the live session and a rebuild: stops the seed's walk.
    struct Mismatch: Error, CustomStringConvertible {
        var description: String
    }

    /// One seeded walk.
    final class Walk {
        let seed: UInt64
        var random: SeededRandom
        let subject: Subject
        /// The definitions of the walked machine the walk migrates between: the subject's own
        /// first, then one or two variants.
        let definitions: [(name: String, definition: MachineDefinition)]
        /// The index of the one the live engine registers now (changed by migrations).
        var current = 0
        /// It, compiled with `bindings`, and its content version.
        var machine: Machine
        var definitionVersion: String
        /// The definitions compiled so far, by index (each at its first migration).
        var compiled: [Int: (machine: Machine, version: String)]
        /// The subject's bindings and the variants' custom action.
        let bindings: Bindings
        /// The snapshot interval of the engine writing now (changed at random by reopening).
        var interval: UInt64
        let directory: TemporaryDirectory
        let time = ManualTime()
        let id: SessionID
        var engine: Engine
        /// Second engines on the same store, by the definition they register (the subject's own
        /// from the start, each variant from the first migration to it): the one registering
        /// the live engine's definition resumes the session from the store after each step.
        var readers: [Int: Engine] = [:]
        var reader: Engine { readers[current]! }
        /// A cursor and a player on the first second engine (registering the subject's own
        /// definition: the variants' records re-run through their stored definitions), kept
        /// (each caches the machines it compiled, at some milliseconds each).
        var cursor: ReplayCursor
        let player: ReplayPlayer
        var session: Session
        /// Another session in the same store, its id an extension of the walked one's, ticking
        /// between the walk's steps: their records interleave in the log.
        let neighbourID: SessionID
        var neighbour: Session
        /// Requests the next `didTransition` hook queues with `setNeedsTransition`.
        let toQueue = LockedBox<[StepRecording.Request]>([])
        /// The live snapshot after each step, by version. After a migration that nothing was
        /// recorded after yet, the one of its version stays the one from before the migration:
        /// the state replay shows at that version.
        var live: [UInt64: SessionSnapshot] = [:]
        /// The live snapshot each migration left, by version and definition.
        var migrated: [String: SessionSnapshot] = [:]
        /// How many migrations the walk made, and how many of them changed the session's state
        /// (beyond the definition it names).
        var migrations = 0
        var divergentMigrations = 0
        /// Whether the walk moves the session with the default upgrade policy (else by replay),
        /// and how many moves kept the session's state as it was (upgrades).
        let upgrades: Bool
        var upgradedMigrations = 0
        var step = 0
        var operation = "open"
        let events: [Event]
        let states: [String]

        init(seed: UInt64) async throws {
            self.seed = seed
            upgrades = seed % 2 == 1
            random = SeededRandom(seed: seed &* 0x2545_F491_4F6C_DD1D &+ 1)
            let subject = ResumeReplayDifferentialTests.subjects[
                Int(seed % UInt64(ResumeReplayDifferentialTests.subjects.count))]
            self.subject = subject
            let machine = try subject.machine()
            let bindings = ResumeReplayDifferentialTests.variantBindings(subject)
            self.bindings = bindings
            // One variant (each subject's seeds take each variation in turn, the next one where it
            // changes nothing), two every fifth seed: a variant registered costs every engine and
            // replay that meets it a compilation.
            var definitions = [(name: "\(subject.name)'s own", definition: machine.definition)]
            let variations = Variation.allCases
            let first = Int(seed / UInt64(ResumeReplayDifferentialTests.subjects.count))
            for offset in 0..<variations.count where definitions.count < (seed % 5 == 0 ? 3 : 2) {
                let variation = variations[(first + offset) % variations.count]
                let varied = variation.apply(to: machine.definition)
                guard !definitions.contains(where: { $0.definition == varied }) else { continue }
                definitions.append((name: "\(subject.name) with \(variation)", definition: varied))
            }
            self.definitions = definitions
            self.machine = machine
            definitionVersion = machine.definition.contentVersion
            compiled = [0: (machine, definitionVersion)]
            interval = Self.intervals.randomElement(using: &random)!
            directory = try TemporaryDirectory(prefix: "rewind-differential")
            // Ids with bytes past ASCII and separators, every fourth seed.
            id = try SessionID(seed % 4 == 3 ? "wälk/日本 \(seed)" : "walk-\(seed)")
            let names = machine.definition.eventNames
            var events = names.map { Event($0) }
            events += names.prefix(3).map { Event($0, payload: ["n": .number(Double($0.count))]) }
            events += names.suffix(3).map { Event($0, payload: ["awkward": .array(Walk.awkward)]) }
            events += [Event("unknown"), Event(StepRecording.enterEvent), Event(StepRecording.dueEvent)]
            self.events = events
            states = machine.stateIDs + ["nowhere"]
            engine = try Self.open(
                directory, machine: machine, interval: interval, tail: Self.tails.randomElement(using: &random)!,
                time: time)
            let reader = try Self.open(
                directory, machine: machine, interval: interval, tail: Self.tails.randomElement(using: &random)!,
                time: time)
            switch subject.opening {
            case .start(let context):
                session = try await engine.startSession(id: id, machine: machine.definition.name, context: context) {
                    _ in
                }
            default:
                session = try engine.makeSession(id: id, machine: machine.definition.name)
                try await session.run(subject.opening)
            }
            neighbourID = try SessionID(id.rawValue + "-neighbour")
            neighbour = try await engine.startSession(id: neighbourID, machine: TickerMachine.name)
            readers = [0: reader]
            cursor = try reader.replayCursor(for: id, bindings: bindings)
            player = try reader.player(for: id, bindings: bindings)
            registerHooks()
        }

        static let intervals: [UInt64] = [1, 2, 3, 7, 64]

        /// How many records a session's entry may lag the log (``StoreConfiguration/maximumSessionTail``).
        static let tails = [0, 1, 5, 256]

        static func open(
            _ directory: TemporaryDirectory, machine: Machine, interval: UInt64, tail: Int, time: ManualTime
        ) throws -> Engine {
            var configuration = EngineConfiguration(durability: .noSync, snapshotInterval: interval)
            configuration.clock = time.clock
            configuration.externalCommitPollInterval = nil
            // Session entries written with every append, or lagging the log by a few records.
            configuration.store.maximumSessionTail = tail
            let opened = try Engine(directory: directory.path, configuration: configuration)
            try opened.register(machine)
            try opened.register(try TickerMachine.machine())
            return opened
        }

        func registerHooks() {
            let toQueue = self.toQueue
            let session = self.session
            session.onDidTransition { [unowned session] _ in
                guard let request = toQueue.withValue({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
                switch request {
                case .send(let event): session.setNeedsTransition(event.name, payload: event.payload)
                case .enter(let state, let data): session.setNeedsTransition(to: state, data: data)
                default: break
                }
            }
        }

        func close() {
            engine.close()
            for reader in readers.values { reader.close() }
            directory.remove()
        }

        func fail(_ what: String) -> Mismatch {
            Mismatch(
                description:
                    "seed \(seed) (\(definitions[current].name), snapshot interval \(interval)) step \(step) [\(operation)]: \(what)"
            )
        }

        func expectEqual<T: Equatable>(_ rebuilt: T, _ expected: T, _ what: String) throws {
            if rebuilt != expected {
                throw fail("\(what) differs\n  rebuilt: \(rebuilt)\n  live:    \(expected)")
            }
        }

        func head(of engine: Engine) throws -> UInt64 {
            try engine.store.sessionInfo(for: id)?.headVersion ?? 0
        }

        /// The definition the record of `session` (the walked one by default) at `version` (its
        /// head by default) names.
        func recordedDefinition(of session: SessionID? = nil, at version: UInt64? = nil, in engine: Engine) throws
            -> String?
        {
            let session = session ?? id
            return try engine.store.read { transaction in
                guard let version = try version ?? transaction.sessionInfo(for: session)?.headVersion else {
                    return nil
                }
                return try transaction.records(of: session, from: version, limit: 1).first?.definition
            }
        }

        /// Whether the live session migrated and recorded nothing since: its head record names
        /// another definition than the one it runs under.
        func migratedSinceHead() throws -> Bool {
            try recordedDefinition(in: engine) != session.snapshot.definition
        }

        /// Resumes `session` (the walked one by default) in `engine`, which registers `machine`:
        /// strictly when its head record names `machine`'s definition; else a strict resume must
        /// refuse (`definitionMismatch`) and the session migrates (`.replayWithRegistered`).
        func resume(_ session: SessionID? = nil, in engine: Engine) throws -> Session {
            let session = session ?? id
            let registered = definitionVersion
            guard let recorded = try recordedDefinition(of: session, in: engine), recorded != registered else {
                return try engine.session(session, policy: .strict)
            }
            do {
                _ = try engine.session(session, policy: .strict)
                throw fail(
                    "a strict resume of '\(session)' recorded under \(recorded.prefix(12)) took \(registered.prefix(12))"
                )
            } catch EngineError.definitionMismatch(session, machine.definition.name, recorded, registered) {
                return try move(session, in: engine)
            }
        }

        /// Resumes `session`, recorded under another definition than `engine`'s, under `engine`'s:
        /// by upgrade when the walk upgrades and its state fits, else by replay.
        func move(_ session: SessionID, in engine: Engine) throws -> Session {
            if upgrades {
                do {
                    return try engine.session(session)
                } catch EngineError.incompatibleDefinition {
                    // A variant's history memory the other definition lacks: migrate by replay.
                }
            }
            return try engine.session(session, policy: .replayWithRegistered)
        }

        /// `snapshot`, a session migrated at the version of `recorded` (the live snapshot there),
        /// reaches its configuration and navigation under the registered definition.
        func expectMigrated(_ snapshot: SessionSnapshot, from recorded: SessionSnapshot, _ what: String) throws {
            try expectEqual(snapshot.version, recorded.version, "the version of \(what)")
            try expectEqual(snapshot.definition, definitionVersion, "the definition of \(what)")
            try expectEqual(snapshot.state.configuration, recorded.state.configuration, "the configuration of \(what)")
            try expectEqual(snapshot.navigation, recorded.navigation, "the navigation of \(what)")
            try expectEqual(snapshot.timestamp, recorded.timestamp, "the time of \(what)")
            if let expected = migrated["\(recorded.version) \(snapshot.definition)"] {
                try expectEqual(snapshot, expected, "\(what) against the live migration there")
            }
        }

        // MARK: Operations

        /// An event: mostly one the machine takes in the session's state, else any of the
        /// vocabulary (unknown and reserved names included).
        func randomEvent() -> Event {
            let state = session.state
            let now = time.machineTime
            let taken = events.filter {
                !StepRecording.isReserved($0.name) && (try? machine.send($0, in: state, now: now)) != nil
            }
            var event =
                (random.chance(0.75) ? taken.randomElement(using: &random) : nil)
                ?? events.randomElement(using: &random)!
            // A top-level final state ends the walk: rarely go there.
            if event.name == "quit", !random.chance(0.1) { event = Event("unknown") }
            return event
        }

        /// Numbers and strings whose JSON is not plain: fractions, exponents, subnormals, the
        /// largest double, -0, integers past 2^53, escapes, control and non-BMP characters.
        static let awkward: [JSONValue] = [
            .number(0.1), .number(1.0 / 3), .number(1e-7), .number(1e21), .number(123_456_789.123),
            .number(-0.0), .number(.leastNonzeroMagnitude), .number(.greatestFiniteMagnitude),
            .number(9_007_199_254_740_994),
            .number(-1234.5e-300), "", "\u{0}\"\\/\n\t", "\u{2028}🙂", "日本", "e\u{301}",
        ]

        func randomData() -> JSONValue {
            switch random.next() % 6 {
            case 0: return .null
            case 1: return ["n": .number(Double(random.next() % 5))]
            case 2: return ["word": "日本", "list": [1, 2]]
            case 3: return Self.awkward.randomElement(using: &random)!
            default:
                let keys = ["", "a.b", "日本", "x"]
                var members: [String: JSONValue] = [:]
                for _ in 0..<(1 + random.next() % 3) {
                    members[keys.randomElement(using: &random)!] =
                        random.chance(0.3)
                        ? [Self.awkward.randomElement(using: &random)!] : Self.awkward.randomElement(using: &random)!
                }
                return .object(members)
            }
        }

        func randomRequest() -> StepRecording.Request {
            random.chance(0.7)
                ? .send(randomEvent()) : .enter(state: states.randomElement(using: &random)!, data: randomData())
        }

        /// Runs one random operation on the live session.
        func perform() async throws {
            time.advance(microseconds: Int64(random.next() % 3000))
            if random.chance(0.3) { try await neighbour.send(TickerMachine.tick) }
            let before = session.snapshot
            let headBefore = try head(of: engine)
            let now = time.machineTime
            switch random.next() % 100 {
            case 0..<44:
                let event = randomEvent()
                operation = "send \(event.name) \(event.payload)"
                let refused =
                    StepRecording.isReserved(event.name)
                    || (try? machine.send(event, in: before.state, now: now)) == nil
                try await expectOutcome(refused: refused, before: before, head: headBefore) {
                    try await self.session.send(event)
                }
            case 44..<59:
                let state =
                    (random.chance(0.7) ? machine.validNextStates(in: before.state).randomElement(using: &random) : nil)
                    ?? states.randomElement(using: &random)!
                let data = randomData()
                operation = "enter \(state) \(data)"
                let refused = !machine.canEnter(state, in: before.state)
                try await expectOutcome(refused: refused, before: before, head: headBefore) {
                    try await self.session.enter(state, data: data)
                }
            case 59..<67:
                let batch = (0..<Int(1 + random.next() % 4)).map { _ in randomEvent() }
                operation = "send(contentsOf: \(batch.map(\.name)))"
                do {
                    try await session.send(contentsOf: batch)
                } catch {
                    try expectUnchanged(before: before, head: headBefore, error: error)
                }
            case 67..<77:
                let queued = (0..<Int(1 + random.next() % 2)).map { _ in randomRequest() }
                toQueue.withValue { $0 = queued }
                let trigger = randomEvent()
                operation = "send \(trigger.name) queueing \(queued)"
                _ = try? await session.send(trigger)
                toQueue.withValue { $0 = [] }
            case 77..<79:
                operation = "reload"
                // Like every request, a reload delivers the sends that have come due after it.
                let due = session.nextDueSend.map { $0 <= time.clock() } ?? false
                // A session migrated that recorded nothing since reloads against a head record of
                // the old definition: it migrates again, as it was resumed.
                if try migratedSinceHead() { operation = "reload after a migration" }
                try await session.reload()
                if !due { try expectEqual(session.snapshot, before, "the session reloaded") }
            case 79..<91:
                let advance = [0, 1, 3, 5, 8, 13, 40].randomElement(using: &random)!
                time.advance(microseconds: Int64(advance) * 1000)
                operation = "advance \(advance) ms, deliverDueSends"
                try await session.deliverDueSends()
                if let due = session.nextDueSend, due <= time.clock() {
                    throw fail("a send due at \(due) is still pending after deliverDueSends")
                }
            case 91..<94:
                // A migration: the app comes back with another definition of the machine (back
                // to the subject's own half the time after one).
                let others = definitions.indices.filter { $0 != current }
                let target = current != 0 && random.chance(0.5) ? 0 : others.randomElement(using: &random)!
                if random.chance(0.5) { interval = Self.intervals.randomElement(using: &random)! }
                operation = "migrate to \(definitions[target].name) (snapshot interval \(interval))"
                try reopen(migratingTo: target, before: before)
            default:
                // Half the time the app comes back with another snapshot interval.
                if random.chance(0.5) { interval = Self.intervals.randomElement(using: &random)! }
                operation = "reopen (snapshot interval \(interval))"
                try reopen(migratingTo: current, before: before)
            }
        }

        /// Closes the engine and opens it again registering `definitions[target]`, resumes the
        /// session (a migration when it was recorded under another definition) and the neighbour.
        /// After a migration, `reader` is the second engine registering `definitions[target]`.
        func reopen(migratingTo target: Int, before: SessionSnapshot) throws {
            let migrating = target != current
            engine.close()
            if compiled[target] == nil {
                let definition = definitions[target].definition
                compiled[target] = (
                    try Machine(definition, bindings: bindings, options: machine.options), definition.contentVersion
                )
            }
            current = target
            (machine, definitionVersion) = compiled[target]!
            engine = try Self.open(
                directory, machine: machine, interval: interval, tail: Self.tails.randomElement(using: &random)!,
                time: time)
            let resumed = try resume(in: engine)
            if migrating, try recordedDefinition(in: engine) != definitionVersion {
                // The same configuration, navigation and time, and the state the new definition
                // computes for every record.
                try expectMigrated(resumed.snapshot, from: before, "the session migrated")
                if upgrades, resumed.snapshot.state == before.state {
                    upgradedMigrations += 1
                } else {
                    migrations += 1
                    if resumed.snapshot.state != before.state { divergentMigrations += 1 }
                }
                migrated["\(before.version) \(resumed.snapshot.definition)"] = resumed.snapshot
            } else {
                // Resumed under the definition of its head record: the live session's state (also
                // back to that definition after a migration that nothing was recorded after).
                try expectEqual(resumed.snapshot.definition, definitionVersion, "the definition resumed")
                if !migrating { try expectEqual(resumed.snapshot, before, "the snapshot resumed after reopening") }
            }
            session = resumed
            registerHooks()
            let ticks = neighbour.snapshot
            neighbour = try engine.session(neighbourID)
            try expectEqual(neighbour.snapshot, ticks, "the neighbour resumed after reopening")
            if readers[target] == nil {
                readers[target] = try Self.open(
                    directory, machine: machine, interval: interval, tail: Self.tails.randomElement(using: &random)!,
                    time: time)
            }
        }

        /// Runs `request`; when `refused`, it must throw and change and write nothing, else succeed.
        func expectOutcome(
            refused: Bool, before: SessionSnapshot, head: UInt64, _ request: () async throws -> Step
        ) async throws {
            do {
                _ = try await request()
                if refused { throw fail("a request the machine refuses was accepted") }
            } catch let mismatch as Mismatch {
                throw mismatch
            } catch {
                if !refused { throw fail("a request the machine takes threw \(error)") }
                try expectUnchanged(before: before, head: head, error: error)
            }
        }

        func expectUnchanged(before: SessionSnapshot, head: UInt64, error: any Error) throws {
            try expectEqual(session.snapshot, before, "the session after a refused request (\(error))")
            try expectEqual(try self.head(of: engine), head, "the head after a refused request (\(error))")
        }

        // MARK: Comparisons

        /// The live session against the store's head, a resume from the second engine, the
        /// cursor and the player at its version. After a migration that nothing was recorded
        /// after yet, the cursor and the player show the state from before the migration (the
        /// records name the old definition), the second engine migrates too.
        func compare() throws {
            let expected = session.snapshot
            let recorded: SessionSnapshot
            if try migratedSinceHead() {
                guard let earlier = live[expected.version] else {
                    throw fail("no live snapshot of the version migrated")
                }
                try expectMigrated(expected, from: earlier, "the live session migrated")
                recorded = earlier
            } else {
                if let earlier = live[expected.version] {
                    try expectEqual(expected, earlier, "the live snapshot of an unchanged version")
                }
                live[expected.version] = expected
                recorded = expected
            }
            try expectEqual(try head(of: engine), expected.version, "the store's head")
            try expectEqual(try resume(in: reader).snapshot, expected, "the session resumed by another engine")
            try expectEqual(
                try reader.session(neighbourID).snapshot, neighbour.snapshot, "the neighbour resumed by another engine")
            try compareReplays(at: expected.version, with: recorded, cursor: &cursor, player: player)
        }

        func compareReplays(
            at version: UInt64, with expected: SessionSnapshot, cursor: inout ReplayCursor, player: ReplayPlayer
        ) throws {
            let point = try cursor.seek(to: version)
            try expectEqual(point.version, version, "the cursor's version")
            try expectEqual(point.state, expected.state, "the cursor's state at \(version)")
            try expectEqual(point.navigation, expected.navigation, "the cursor's navigation at \(version)")
            try expectEqual(point.timestamp, expected.timestamp, "the cursor's time at \(version)")
            try player.skip(to: version)
            try expectEqual(player.snapshot, expected, "the player skipped to \(version)")
        }

        /// The end of the walk: earlier versions, verification, export/import, forks.
        func finish() async throws {
            operation = "finish"
            let versions = live.keys.sorted()
            // Seeks to earlier versions, in random order, by cursor and player.
            for version in versions.shuffled(using: &random).prefix(8) {
                try compareReplays(at: version, with: live[version]!, cursor: &cursor, player: player)
            }
            // Every version, intermediate ones (deliveries appended with a step) included: seeking,
            // stepping and playing agree, and seeking to a version's time lands on the last
            // version of that time.
            // The cursors are copies of the kept one (with the machines it compiled).
            var stepping = cursor
            let playing = try engine.player(for: id, bindings: bindings)
            var seeking = cursor
            try stepping.seek(to: 0)
            var times: [(version: UInt64, time: Timestamp)] = []
            for version in 0...session.version {
                if version > 0, try stepping.stepForward() == nil {
                    throw fail("the cursor stopped before \(version)")
                }
                try playing.play(through: version)
                let point = try seeking.seek(to: version)
                try expectEqual(stepping.point, point, "the cursor stepped to \(version) against seeking")
                try expectEqual(playing.snapshot.state, point.state, "the player at \(version) against seeking")
                try expectEqual(playing.snapshot.navigation, point.navigation, "the player's navigation at \(version)")
                if let expected = live[version] {
                    try expectEqual(playing.snapshot, expected, "the player played through \(version)")
                }
                if let time = point.timestamp { times.append((version, time)) }
            }
            // By a copy of the stepping cursor (it compiled the machines of every definition).
            var byTime = stepping
            for (version, time) in times {
                let found = try byTime.seek(to: time)
                if found.version < version || found.timestamp != time {
                    throw fail("seeking to the time of version \(version) found version \(found.version)")
                }
                if let expected = live[found.version] {
                    try expectEqual(found.state, expected.state, "the cursor seeked to the time of \(version)")
                }
            }
            // Verification against the registered machine, and against the subject's own after
            // migrations (each definition reproduces every record, whichever it was written under).
            // Against another definition than the last migration record's, that record's state may
            // name a state only the variant has (its history memory): an incompatibility there.
            for candidate in Set([current, migrations > 0 ? 0 : current]).sorted().compactMap({ compiled[$0]?.machine })
            {
                let report = try engine.verify(id, against: candidate)
                if let divergence = report.divergence, candidate.definition.contentVersion != definitionVersion,
                    case .incompatible = divergence.kind, divergence.version == report.firstVersion
                {
                    continue
                }
                if !report.isClean { throw fail("verification: \(report)") }
                // From the last migration record on (they are written since migrations are).
                try expectEqual(
                    report.verifiedRecords, session.version - report.firstVersion + 1, "the records verified")
            }
            // A fresh engine resumes the session.
            let fresh = try Self.open(
                directory, machine: machine, interval: Self.intervals.randomElement(using: &random)!,
                tail: Self.tails.randomElement(using: &random)!, time: time)
            defer { fresh.close() }
            try expectEqual(try resume(in: fresh).snapshot, session.snapshot, "the session resumed by a fresh engine")
            // Export → import into a fresh store → resume.
            let archive = try engine.exportSession(id)
            let other = try TemporaryDirectory(prefix: "rewind-differential-import")
            defer { other.remove() }
            let importer = try Self.open(
                other, machine: machine, interval: Self.intervals.randomElement(using: &random)!,
                tail: Self.tails.randomElement(using: &random)!, time: time)
            defer { importer.close() }
            _ = try await importer.importSession(archive)
            try expectEqual(try resume(in: importer).snapshot, session.snapshot, "the imported session resumed")
            if let version = versions.randomElement(using: &random) {
                var cursor = try importer.replayCursor(for: id, bindings: bindings)
                let player = try importer.player(for: id, bindings: bindings)
                try compareReplays(at: version, with: live[version]!, cursor: &cursor, player: player)
            }
            // A player (on the live engine) handing over at an earlier version: a live session
            // equal to that version, migrated when that version's record names another definition
            // than the registered one.
            if let version = versions.filter({ $0 > 0 }).randomElement(using: &random) {
                let player = playing
                try player.skip(to: version)
                let handover = try SessionID("handover-\(seed)")
                if try recordedDefinition(at: version, in: reader) == definitionVersion {
                    let handedOver = try await player.handOver(as: handover)
                    try expectEqual(handedOver.snapshot, live[version]!, "the session handed over at \(version)")
                } else {
                    let handedOver: Session
                    if upgrades {
                        do {
                            handedOver = try await player.handOver(as: handover)
                        } catch EngineError.incompatibleDefinition {
                            handedOver = try engine.session(handover, policy: .replayWithRegistered)
                        }
                    } else {
                        handedOver = try await player.handOver(as: handover, policy: .replayWithRegistered)
                    }
                    try expectMigrated(
                        handedOver.snapshot, from: live[version]!, "the session handed over at \(version)")
                }
            }
            // Forks at earlier versions (one where the walk migrated, if it did), resumed: strictly
            // where that version's record names the registered definition, else migrated.
            let migratedVersions = Set(
                migrated.keys.compactMap { $0.split(separator: " ").first.flatMap { UInt64($0) } })
            let forked =
                Array(migratedVersions.filter { $0 > 0 }.sorted().shuffled(using: &random).prefix(1))
                + versions.filter { $0 > 0 && !migratedVersions.contains($0) }.shuffled(using: &random).prefix(1)
            for (index, version) in forked.enumerated() {
                let fork = try SessionID("fork-\(seed)-\(index)")
                _ = try await engine.fork(id, at: version, as: fork)
                let resumed = try resume(fork, in: engine).snapshot
                if try recordedDefinition(of: fork, in: engine) == definitionVersion {
                    try expectEqual(resumed, live[version]!, "the fork at \(version), resumed")
                } else {
                    try expectMigrated(resumed, from: live[version]!, "the fork at \(version), resumed")
                }
            }
        }
    }

    /// Walks `seeds`, `steps` operations each; a mismatch fails with its seed, step and operation.
    /// Returns how many replay migrations the walks made, how many of them changed the session's
    /// state, and how many upgrades kept it; `nil` after a mismatch.
    @discardableResult
    static func walk(seeds: Range<UInt64>, steps: Int) async throws -> (migrations: Int, divergent: Int, upgrades: Int)?
    {
        var migrations = 0
        var divergent = 0
        var upgrades = 0
        for seed in seeds {
            let walk = try await Walk(seed: seed)
            defer { walk.close() }
            do {
                try walk.compare()
                for step in 1...steps {
                    walk.step = step
                    try await walk.perform()
                    try walk.compare()
                }
                try await walk.finish()
            } catch let mismatch as Mismatch {
                Issue.record(Comment(rawValue: mismatch.description))
                return nil
            } catch {
                Issue.record(
                    Comment(
                        rawValue:
                            "seed \(seed) (\(walk.definitions[walk.current].name), interval \(walk.interval)) step \(walk.step) [\(walk.operation)]: \(error)"
                    ))
                return nil
            }
            migrations += walk.migrations
            divergent += walk.divergentMigrations
            upgrades += walk.upgradedMigrations
        }
        return (migrations, divergent, upgrades)
    }

    @Test func liveSessionsEqualEveryRebuild() async throws {
        let environment = ProcessInfo.processInfo.environment
        let parts = (environment["REWIND_DIFFERENTIAL_SEEDS"] ?? "").split(separator: ":").compactMap { UInt64($0) }
        let seeds = parts.count == 2 ? parts[0]..<(parts[0] + parts[1]) : 0..<33
        let steps = environment["REWIND_DIFFERENTIAL_STEPS"].flatMap { Int($0) } ?? 40
        // The walks migrate, most replay migrations compute another state than the live one had,
        // and the upgrades keep it.
        if let walked = try await Self.walk(seeds: seeds, steps: steps) {
            #expect(walked.divergent * 2 >= walked.migrations, "\(walked)")
            if parts.count != 2 {
                #expect(walked.divergent >= 10, "\(walked)")
                #expect(walked.upgrades >= 10, "\(walked)")
            }
        }
    }
}
