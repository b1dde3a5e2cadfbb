import Dispatch
import Foundation
import Testing
@testable import Rewind
import RewindTestSupport

// MARK: Projections under test

/// Throws on the record whose global sequence it is armed with (a fault injected into a fold).
final class FaultSwitch: Sendable {
    struct Injected: Error, CustomStringConvertible {
        let sequence: UInt64
        var description: String { "injected fault at sequence \(sequence)" }
    }

    let failAt = LockedBox<UInt64?>(nil)

    func check(_ record: TransitionRecord) throws {
        if let failAt = failAt.current, failAt == record.sequence { throw Injected(sequence: record.sequence) }
    }
}

/// ``ScreenFlowProjection`` through the general fold (whole records, the projection's own
/// `apply`), not its fold over record views; the same stored bytes. Can be made to fail.
struct GeneralScreenFlow: Projection {
    var name: String
    var version: UInt32 = 1
    var fault: FaultSwitch

    func key(for record: TransitionRecord) -> String? { record.session.rawValue }

    func apply(_ record: TransitionRecord, to state: inout ScreenFlowProjection.Flow?) throws {
        try fault.check(record)
        ScreenFlowProjection(name: name).apply(record, to: &state)
    }

    func encode(_ state: ScreenFlowProjection.Flow, into buffer: inout [UInt8]) {
        ScreenFlowProjection(name: name).encode(state, into: &buffer)
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws -> ScreenFlowProjection.Flow {
        try ScreenFlowProjection(name: name).decode(bytes)
    }
}

/// ``NavigationProjection`` that can be made to fail; the same stored bytes.
struct FaultyNavigation: Projection {
    var name: String
    var fault: FaultSwitch
    var version: UInt32 { 1 }

    func key(for record: TransitionRecord) -> String? { record.session.rawValue }

    func apply(_ record: TransitionRecord, to state: inout NavigationProjection.SessionNavigation?) throws {
        try fault.check(record)
        try NavigationProjection(name: name).apply(record, to: &state)
    }

    func encode(_ state: NavigationProjection.SessionNavigation, into buffer: inout [UInt8]) throws {
        try NavigationProjection(name: name).encode(state, into: &buffer)
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws -> NavigationProjection.SessionNavigation {
        try NavigationProjection(name: name).decode(bytes)
    }
}

// MARK: The fuzz

/// A seeded differential fuzz of projections: random sessions of every example machine and of
/// ``MixedFeatureChart`` (valid and invalid sends and enters, bulk sends, forks, imports, records
/// another writer appends behind the engine's back), with screen-flow and navigation projections
/// arriving every way there is — inline from the start, registered later (inline or catch-up,
/// also on another thread while sessions append), caught up in small batches (also by two
/// threads at once, or interleaved), resumed after the engine is reopened, rebuilt (also by a
/// version bump), stopped by injected faults and by the engine closing in the middle of a
/// catch-up — through the built-in fold over record views and through the general fold.
///
/// At every check (each 10 steps) each projection's stored states, read with its checkpoint in one
/// transaction (also while sessions append), must be exactly those of a reference fold of the log
/// up to that checkpoint, never ahead of the log; reads through the public ``ProjectionReader``
/// must be some prefix's; the reference must agree at every record with a model built from the
/// sessions' live snapshots; inline projections must be at the head; and once caught up every way
/// of arriving at the head (and a rebuild) must give the same bytes. A failure names the seed and
/// the step (`PROJECTION_FUZZ_VERBOSE=1` prints what each seed did).
struct ProjectionDifferentialFuzzTests {
    /// `PROJECTION_FUZZ_SEEDS=n` runs seeds 1…n (default 12); `PROJECTION_FUZZ_SEED=s` seed s alone
    /// (`PROJECTION_FUZZ_TRACE=1` prints every step and the projections' checkpoints).
    static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["PROJECTION_FUZZ_SEED"].flatMap({ UInt64($0) }) { return [seed] }
        let count = environment["PROJECTION_FUZZ_SEEDS"].flatMap { Int($0) } ?? 12
        return (1...max(1, count)).map { UInt64($0) }
    }()

    /// Steps per seed (`PROJECTION_FUZZ_STEPS`, default 100).
    static let steps: Int = ProcessInfo.processInfo.environment["PROJECTION_FUZZ_STEPS"].flatMap { Int($0) } ?? 100

    /// Serialized: the seeds' threads block on semaphores, which would starve each other's
    /// sessions on a small cooperative pool.
    @Test(.serialized, arguments: seeds)
    func everyWayOfArrivingAtAProjectionAgreesWithTheModel(seed: UInt64) async throws {
        let fuzz = try ProjectionFuzz(seed: seed)
        defer { fuzz.finish() }
        try await fuzz.run(steps: Self.steps)
    }
}

/// What a projection's states are.
enum ProjectionKind: Sendable {
    case screenFlow, navigation
}

/// The projections' states (by the state key's bytes) as one read saw them.
struct ProjectionObservation: Sendable {
    var name: String
    var kind: ProjectionKind
    var checkpoint: UInt64
    var head: UInt64
    var failed: Bool
    var states: [[UInt8]: [UInt8]]
    /// `true`: read with the checkpoint in one transaction, so the states are exactly the
    /// checkpoint's; `false`: through the public ``ProjectionReader``, some prefix of the log.
    var exact: Bool
    var context: String
}

/// One session of the model: what its live snapshots said after each of its versions.
final class ModelSession {
    struct Entry {
        var configuration: [String]?
        var event: String?
        var navigation: NavigationStack?
        var timestamp: Timestamp?
    }

    let id: SessionID
    let machine: String
    /// Appended by another writer, with no machine the engine knows.
    let external: Bool
    var history: [Entry] = []
    var live: Session?

    init(id: SessionID, machine: String, history: [Entry] = [], external: Bool = false) {
        self.id = id
        self.machine = machine
        self.history = history
        self.external = external
    }

    var key: [UInt8] { Array(id.rawValue.utf8) }
}

/// A machine the fuzz runs sessions of.
struct FuzzMachine: Sendable {
    var name: String
    var machine: Machine
    var opening: StepRecording.Request
    var events: [String]
    var enterStates: [String]
}

/// A projection slot: one name, one way of arriving at it.
final class ProjectionSlot {
    let name: String
    let kind: ProjectionKind
    let fault: FaultSwitch?
    /// Listed in the configuration (inline) when the engine opens.
    let fromStart: Bool
    /// Uses the general fold (a wrapper) rather than the built-in projection.
    let general: Bool
    var version: UInt32 = 1
    var registered = false
    var mode: ProjectionMode = .inline
    /// The step at which it is first registered (late slots).
    var registerAt: Int

    init(name: String, kind: ProjectionKind, fault: FaultSwitch?, fromStart: Bool, general: Bool, registerAt: Int) {
        self.name = name
        self.kind = kind
        self.fault = fault
        self.fromStart = fromStart
        self.general = general
        self.registerAt = registerAt
    }

    var projection: any Projection {
        switch (kind, general, fault) {
        case (.screenFlow, false, _): ScreenFlowProjection(name: name)
        case (.screenFlow, true, let fault): GeneralScreenFlow(name: name, version: version, fault: fault ?? FaultSwitch())
        case (.navigation, false, _): NavigationProjection(name: name)
        case (.navigation, true, let fault): FaultyNavigation(name: name, fault: fault ?? FaultSwitch())
        }
    }
}

final class ProjectionFuzz {
    let seed: UInt64
    var random: SeededRandom
    let directory: TemporaryDirectory
    var engine: Engine
    var step = 0
    let machines: [FuzzMachine]
    var sessions: [ModelSession] = []
    var slots: [ProjectionSlot] = []
    var pending: [ProjectionObservation] = []
    var failures: [String] = []
    var nextSessionNumber = 0
    /// Another writer appended since the engine's last commit (inline projections lag until then).
    var externalPending = false
    /// What the run did, by kind (printed with `PROJECTION_FUZZ_VERBOSE=1`).
    var counts: [String: Int] = [:]
    var timings: [String: Double] = [:]
    /// Special session ids: byte-distinct but canonically equal, non-ASCII, long.
    var specialIDs = ["café", "cafe\u{301}", "日本", "a-session-id-longer-than-fifteen-bytes-\u{1F600}"]

    init(seed: UInt64) throws {
        self.seed = seed
        random = SeededRandom(seed: seed)
        directory = try TemporaryDirectory(prefix: "rewind-projection-fuzz")
        var machines: [FuzzMachine] = []
        for scenario in ExampleScenario.all {
            let machine = try scenario.machine()
            let enterStates: [String] = switch scenario.name {
            case "kanji": ["all", "detail", "list"]
            case "map": ["start", "preview", "navigation"]
            default: ["home", "idle", "post"]
            }
            machines.append(FuzzMachine(
                name: scenario.name, machine: machine, opening: scenario.opening,
                events: machine.definition.eventNames + ["bogus"], enterStates: enterStates))
        }
        let mixed = try Machine(MixedFeatureChart.definition(delayedSend: false), bindings: MixedFeatureChart.bindings)
        machines.append(FuzzMachine(
            name: "mixed", machine: mixed, opening: .start(context: .object(["count": .number(0)])),
            events: mixed.definition.eventNames + ["bogus"], enterStates: ["a", "b", "p"]))
        self.machines = machines

        let faultGeneral = FaultSwitch()
        let faultLateNavigation = FaultSwitch()
        let faultLateGeneral = FaultSwitch()
        var random = self.random
        func later() -> Int { Int.random(in: 1...max(2, ProjectionDifferentialFuzzTests.steps / 2), using: &random) }
        slots = [
            ProjectionSlot(name: "sf.inline", kind: .screenFlow, fault: nil, fromStart: true, general: false, registerAt: 0),
            ProjectionSlot(name: "nav.inline", kind: .navigation, fault: nil, fromStart: true, general: false, registerAt: 0),
            ProjectionSlot(name: "sf.general", kind: .screenFlow, fault: faultGeneral, fromStart: true, general: true, registerAt: 0),
            ProjectionSlot(name: "sf.catchup", kind: .screenFlow, fault: nil, fromStart: false, general: false, registerAt: 0),
            ProjectionSlot(name: "sf.late", kind: .screenFlow, fault: nil, fromStart: false, general: false, registerAt: later()),
            ProjectionSlot(
                name: "nav.late", kind: .navigation, fault: faultLateNavigation, fromStart: false, general: true,
                registerAt: later()),
            ProjectionSlot(
                name: "sf.late-general", kind: .screenFlow, fault: faultLateGeneral, fromStart: false, general: true,
                registerAt: later()),
        ]
        slots[3].mode = .catchUp
        self.random = random
        engine = try Self.openEngine(directory: directory, machines: machines, slots: slots)
        try registerDue()
    }

    func finish() {
        engine.close()
        directory.remove()
    }

    var context: String { "seed \(seed) step \(step)" }

    func fail(_ message: String) {
        failures.append("\(context): \(message)")
    }

    // MARK: Engine

    static func openEngine(directory: TemporaryDirectory, machines: [FuzzMachine], slots: [ProjectionSlot]) throws -> Engine {
        var configuration = EngineConfiguration(durability: .noSync)
        configuration.snapshotInterval = 4
        configuration.externalCommitPollInterval = nil
        configuration.projections = slots.filter(\.fromStart).map(\.projection)
        let engine = try Engine(directory: directory.path, configuration: configuration)
        for machine in machines { try engine.register(machine.machine, as: machine.name) }
        for slot in slots { slot.registered = slot.fromStart }
        return engine
    }

    /// Registers the slots whose time came (and, after a reopen, those registered before).
    func registerDue(reopened: Bool = false) throws {
        for slot in slots where !slot.registered && !slot.fromStart {
            let due = slot.registerAt <= step && (!reopened || random.chance(0.7))
            guard due else {
                if reopened, slot.registerAt <= step { slot.registerAt = step + Int.random(in: 1...10, using: &random) }
                continue
            }
            if slot.name != "sf.catchup" { slot.mode = random.chance(0.5) ? .inline : .catchUp }
            slot.registered = true
            do {
                try engine.register(slot.projection, mode: slot.mode)
            } catch {
                guard isInjected(error) else { throw error }
            }
        }
    }

    func reopen(alreadyClosed: Bool = false) throws {
        if !alreadyClosed { engine.close() }
        for session in sessions { session.live = nil }
        for slot in slots { slot.registered = false }
        if let general = slots.first(where: { $0.name == "sf.general" }), random.chance(0.3) {
            general.version = general.version == 1 ? 2 : 1  // a version bump: rebuilt from scratch
        }
        engine = try Self.openEngine(directory: directory, machines: machines, slots: slots)
        try registerDue(reopened: true)
    }

    /// An error a catch-up may throw: a fault this fuzz injected.
    func isInjected(_ error: any Error) -> Bool {
        if case let ProjectionError.applyFailed(projection, sequence, _, reason) = error,
           slots.contains(where: { $0.name == projection && $0.fault != nil }),
           reason.description == FaultSwitch.Injected(sequence: sequence).description
        {
            count("faultHit")
            return true
        }
        return false
    }

    func liveSession(_ model: ModelSession) throws -> Session {
        if let live = model.live { return live }
        let session = try engine.session(model.id)
        model.live = session
        let snapshot = session.snapshot
        if snapshot.version != UInt64(model.history.count) {
            fail("session \(model.id) resumed at version \(snapshot.version), the model has \(model.history.count)")
        } else if let last = model.history.last {
            if let configuration = last.configuration, configuration != snapshot.state.configuration {
                fail("session \(model.id) resumed in \(snapshot.state.configuration), the model says \(configuration)")
            }
            if let navigation = last.navigation, navigation != snapshot.navigation {
                fail("session \(model.id) resumed with stack \(snapshot.navigation.screens), the model says \(navigation.screens)")
            }
        }
        return session
    }

    // MARK: Steps

    enum Request: Sendable {
        case start(FuzzMachine)
        case send(Event)
        case enter(String, JSONValue)
        case batch([Event])

        var eventName: String {
            switch self {
            case .start(let machine):
                if case .start = machine.opening { StepRecording.startEvent } else { StepRecording.enterEvent }
            case .send(let event): event.name
            case .enter: StepRecording.enterEvent
            case .batch(let events): events.last?.name ?? ""
            }
        }
    }

    func randomPayload() -> JSONValue {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: ["title": "Inbox", "items": ["a", "b"]]
        case 1: "timeout"
        case 2: ["character": "日", "meanings": ["sun", "day"]]
        default: .null
        }
    }

    /// An event of `machine`: usually one it takes in `state` (when there is one), else any.
    func randomEvent(of machine: FuzzMachine, in state: MachineState, inBatch: Bool = false) -> Event {
        var names = machine.events
        if inBatch { names.removeAll { $0 == "noise" } }  // an ignored event records nothing
        let payload = random.chance(0.3) ? randomPayload() : .null
        if random.chance(0.75) {
            let valid = names.filter { (try? machine.machine.send(Event($0, payload: payload), in: state)) != nil }
            if !valid.isEmpty { names = valid }
        }
        return Event(names[Int.random(in: 0..<names.count, using: &random)], payload: payload)
    }

    func machine(named name: String) -> FuzzMachine {
        machines.first { $0.name == name } ?? machines[0]
    }

    func newSessionID() throws -> SessionID {
        if !specialIDs.isEmpty, random.chance(0.25) { return try SessionID(specialIDs.removeFirst()) }
        nextSessionNumber += 1
        return try SessionID("s-\(nextSessionNumber)")
    }

    func run(steps: Int) async throws {
        for index in 1...steps {
            step = index
            try await runStep()
            if index % 10 == 0 || index == steps { try await timed("check") { try await check() } }
            if !failures.isEmpty { break }
        }
        if ProcessInfo.processInfo.environment["PROJECTION_FUZZ_VERBOSE"] != nil {
            let head = (try? engine.store.headSequence()) ?? 0
            print("seed \(seed): head \(head), sessions \(sessions.count), \(counts.sorted { $0.key < $1.key }), "
                  + "\(timings.sorted { $0.key < $1.key }.map { "\($0.key) \(Int($0.value * 1000)) ms" })")
        }
        for failure in failures.prefix(20) { Issue.record(Comment(rawValue: failure)) }
        if !failures.isEmpty { print("ProjectionDifferentialFuzzTests: first failure at \(failures[0])") }
    }

    func count(_ what: String, _ n: Int = 1) { counts[what, default: 0] += n }

    func timed<R>(_ what: String, _ body: () async throws -> R) async rethrows -> R {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { timings[what, default: 0] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        return try await body()
    }

    func runStep() async throws {
        try registerDue()
        let roll = Double.random(in: 0..<1, using: &random)
        let kind = switch roll {
        case ..<0.04: "reopen"
        case ..<0.07: "abort"
        case ..<0.11: "fault"
        case ..<0.15: "catchUpSmall"
        case ..<0.18: "rebuild"
        case ..<0.21: "catchUpAll"
        case ..<0.24: "forkImport"
        case ..<0.27: "external"
        case ..<0.30: "interleavedCatchUp"
        default: "operations"
        }
        count(kind)
        if ProcessInfo.processInfo.environment["PROJECTION_FUZZ_TRACE"] != nil {
            let statuses = slots.map { slot in
                let status = try? engine.projectionStatus(named: slot.name)
                return "\(slot.name)\(slot.registered ? (slot.mode == .inline ? "[i]" : "[c]") : "[-]")=\(status.map { "\($0.checkpoint)\($0.failure == nil ? "" : "!")" } ?? "nil")"
            }
            print("TRACE \(context) \(kind) head \((try? engine.store.headSequence()) ?? 0) \(statuses.joined(separator: " "))")
        }
        try await timed(kind) { try await runStep(roll) }
    }

    func runStep(_ roll: Double) async throws {
        switch roll {
        case ..<0.04:
            try reopen()
        case ..<0.07:
            try abortedCatchUp()
        case ..<0.11:
            armFault()
        case ..<0.15:
            try catchUpSmall(slot: randomRegisteredSlot())
        case ..<0.18:
            if let slot = randomRegisteredSlot() {
                do { try engine.rebuildProjection(named: slot.name) } catch { guard isInjected(error) else { throw error } }
            }
        case ..<0.21:
            do { try engine.catchUpProjections() } catch { guard isInjected(error) else { throw error } }
        case ..<0.24:
            try await forkOrImport()
        case ..<0.27:
            try externalAppend()
        case ..<0.30:
            try interleavedCatchUps()
        default:
            try await operations(concurrentCatchUp: random.chance(0.25) ? try concurrentCatchUpSlot() : nil)
        }
    }

    /// The projection to catch up on another thread while sessions append: preferably one that
    /// lags (failed, or not caught up) or one due to be registered (added here, caught up there),
    /// so that inline runs and catch-up batches interleave; its fault disarmed half the time.
    func concurrentCatchUpSlot() throws -> ProjectionSlot? {
        let head = try engine.store.headSequence()
        var candidates: [ProjectionSlot] = []
        for slot in slots {
            if slot.registered {
                let status = try engine.projectionStatus(named: slot.name)
                if (status?.checkpoint ?? 0) < head || status?.failure != nil { candidates.append(slot) }
            } else if !slot.fromStart, slot.registerAt <= step + 10 {
                candidates.append(slot)
            }
        }
        guard !candidates.isEmpty, random.chance(0.8) else { return randomRegisteredSlot() }
        let slot = candidates[Int.random(in: 0..<candidates.count, using: &random)]
        if random.chance(0.5) { slot.fault?.failAt.withValue { $0 = nil } }
        if !slot.registered {
            if slot.name != "sf.catchup" { slot.mode = random.chance(0.7) ? .inline : .catchUp }
            try engine.projections.add(slot.projection.runner(mode: slot.mode))
            slot.registered = true
            count("registeredConcurrently")
        }
        count("concurrentCatchUp")
        return slot
    }

    func randomRegisteredSlot() -> ProjectionSlot? {
        let registered = slots.filter(\.registered)
        guard !registered.isEmpty else { return nil }
        return registered[Int.random(in: 0..<registered.count, using: &random)]
    }

    func armFault() {
        let faulty = slots.filter { $0.fault != nil }
        let slot = faulty[Int.random(in: 0..<faulty.count, using: &random)]
        guard let fault = slot.fault else { return }
        let head = (try? engine.store.headSequence()) ?? 0
        if fault.failAt.current != nil, random.chance(0.5) {
            fault.failAt.withValue { $0 = nil }
        } else if head > 0, random.chance(0.4) {
            fault.failAt.withValue { $0 = UInt64.random(in: 1...head, using: &random) }  // hits a rebuild
        } else {
            fault.failAt.withValue { $0 = head + UInt64.random(in: 1...6, using: &random) }  // hits inline runs
        }
    }

    /// Catches `slot` up in batches of 1…5 records.
    func catchUpSmall(slot: ProjectionSlot?) throws {
        guard let slot, let runner = engine.projections.runner(named: slot.name) else { return }
        let batchSize = Int.random(in: 1...5, using: &random)
        do {
            try engine.projections.catchUp(runner, store: engine.store, batchSize: batchSize) { _ in }
        } catch {
            guard isInjected(error) else { throw error }
        }
    }

    /// A crash-like abort: the engine closes after the first batch of a catch-up (or of a rebuild
    /// done by hand in small batches), then it is reopened.
    func abortedCatchUp() throws {
        guard let slot = randomRegisteredSlot(), let runner = engine.projections.runner(named: slot.name) else { return }
        let engine = self.engine
        if random.chance(0.5) {
            try engine.store.write { transaction in
                try ProjectionRegistry.removeStates(of: slot.name, in: transaction)
                try transaction.delete(Array(slot.name.utf8), in: .checkpoints)
            }
        }
        let batchSize = Int.random(in: 1...4, using: &random)
        var closed = false
        do {
            try engine.projections.catchUp(runner, store: engine.store, batchSize: batchSize) { _ in
                if !closed {
                    closed = true
                    engine.close()
                }
            }
        } catch {
            // The store closed under it (or an injected fault): nothing to check but the aftermath.
            count("abort.threw")
        }
        if !closed { engine.close() }
        try reopen(alreadyClosed: true)
    }

    /// Two catch-ups of one projection interleaved: between two batches of a rebuild (states
    /// and checkpoint deleted by hand), another catch-up of it runs from the first one's
    /// checkpoint and stops on an injected fault a few records further; the first then goes on
    /// from there.
    func interleavedCatchUps() throws {
        let faulty = slots.filter { $0.registered && $0.fault != nil }
        guard !faulty.isEmpty else { return }
        let slot = faulty[Int.random(in: 0..<faulty.count, using: &random)]
        guard let fault = slot.fault, let runner = engine.projections.runner(named: slot.name) else { return }
        let head = try engine.store.headSequence()
        guard head > 8 else { return }
        try engine.store.write { transaction in
            try ProjectionRegistry.removeStates(of: slot.name, in: transaction)
            try transaction.delete(Array(slot.name.utf8), in: .checkpoints)
        }
        fault.failAt.withValue { $0 = nil }
        let engine = self.engine
        let firstBatch = Int.random(in: 1...3, using: &random)
        let secondBatch = Int.random(in: 1...3, using: &random)
        let stopAfter = UInt64.random(in: 2...6, using: &random)
        var interleaved = false
        var unexpected: (any Error)?
        do {
            try engine.projections.catchUp(runner, store: engine.store, batchSize: firstBatch) { progress in
                guard !interleaved, progress.recordsDone > 0 else { return }
                interleaved = true
                let checkpoint = (try? engine.projectionStatus(named: runner.name)?.checkpoint) ?? 0
                fault.failAt.withValue { $0 = checkpoint + stopAfter }
                do {
                    try engine.projections.catchUp(runner, store: engine.store, batchSize: secondBatch) { _ in }
                } catch {
                    if !isInjected(error) { unexpected = error }
                }
                fault.failAt.withValue { $0 = nil }
            }
        } catch {
            if !isInjected(error) { unexpected = error }
        }
        if let unexpected { fail("interleaved catch-ups of \(slot.name) threw \(unexpected)") }
    }

    /// Another writer (another store handle, as another process would) appends records of its
    /// own sessions behind the engine's back: inline projections fold them before the engine's
    /// next commit.
    func externalAppend() throws {
        var configuration = StoreConfiguration()
        configuration.environment.options.insert(.noSync)
        let store = try TransitionStore(directory: directory.path, configuration: configuration)
        defer { store.close() }
        let screens = ["home", "list", "detail", "settings"]
        func screen() -> String { screens[Int.random(in: 0..<screens.count, using: &random)] }
        var planned: [(model: ModelSession, transitions: [TransitionDraft])] = []
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            let external = sessions.filter(\.external)
            let model: ModelSession
            if external.isEmpty || random.chance(0.3) {
                nextSessionNumber += 1
                model = ModelSession(id: try SessionID("ext-\(nextSessionNumber)"), machine: "bulk", external: true)
                sessions.append(model)
            } else {
                model = external[Int.random(in: 0..<external.count, using: &random)]
            }
            guard !planned.contains(where: { $0.model === model }) else { continue }
            var stack = model.history.last?.navigation ?? NavigationStack()
            var transitions: [TransitionDraft] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let operations: [NavigationOperation] = (0..<Int.random(in: 0...2, using: &random)).map { _ in
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0: .push(screen())
                    case 1: .pop
                    case 2: .popToRoot
                    case 3: .popTo(screen())
                    case 4: .replace(screen())
                    default: .setRoot(screen())
                    }
                }
                let target = screen()
                let event = "go-\(target)"
                let time = Int64(model.history.count + transitions.count)
                transitions.append(ProjectionFixtures.transition(event: event, to: target, navigation: operations, at: time))
                stack.apply(operations)
                model.history.append(ModelSession.Entry(
                    configuration: [target], event: event, navigation: stack,
                    timestamp: Timestamp(microsecondsSince1970: time)))
            }
            planned.append((model, transitions))
        }
        try store.write { transaction in
            for (model, transitions) in planned { try transaction.append(transitions, to: model.id) }
        }
        externalPending = true
    }

    func forkOrImport() async throws {
        let candidates = sessions.filter { !$0.history.isEmpty && !$0.external }
        guard !candidates.isEmpty else { return }
        let source = candidates[Int.random(in: 0..<candidates.count, using: &random)]
        let id = try newSessionID()
        if random.chance(0.5) {
            let version = UInt64.random(in: 1...UInt64(source.history.count), using: &random)
            try await engine.fork(source.id, at: version, as: id)
            externalPending = false
            sessions.append(ModelSession(id: id, machine: source.machine, history: Array(source.history.prefix(Int(version)))))
        } else {
            let archive = try engine.exportSession(source.id)
            try await engine.importSession(archive, as: id)
            externalPending = false
            sessions.append(ModelSession(id: id, machine: source.machine, history: source.history))
        }
    }

    /// 1–4 requests on distinct sessions at once (group commits), while a reader thread reads the
    /// projections and, maybe, another thread catches one up in small batches.
    func operations(concurrentCatchUp: ProjectionSlot?) async throws {
        var planned: [(model: ModelSession, request: Request, session: Session?)] = []
        var used: Set<[UInt8]> = []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            if sessions.count < 3 || (sessions.count < 24 && random.chance(0.15)) {
                let machine = machines[Int.random(in: 0..<machines.count, using: &random)]
                let id = try newSessionID()
                guard !sessions.contains(where: { $0.key == Array(id.rawValue.utf8) }) else { continue }
                let model = ModelSession(id: id, machine: machine.name)
                sessions.append(model)
                used.insert(model.key)
                planned.append((model, .start(machine), nil))
                continue
            }
            let model = sessions[Int.random(in: 0..<sessions.count, using: &random)]
            guard !model.history.isEmpty, !model.external, used.insert(model.key).inserted else { continue }
            let machine = machine(named: model.machine)
            let session = try liveSession(model)
            let request: Request
            switch Double.random(in: 0..<1, using: &random) {
            case ..<0.65: request = .send(randomEvent(of: machine, in: session.state))
            case ..<0.85:
                var states = machine.enterStates
                if random.chance(0.75) {
                    let valid = states.filter { session.canEnter($0) }
                    if !valid.isEmpty { states = valid }
                }
                let state = states[Int.random(in: 0..<states.count, using: &random)]
                request = .enter(state, random.chance(0.5) ? randomPayload() : .null)
            default:
                var state = session.state
                var events: [Event] = []
                for _ in 0..<Int.random(in: 2...4, using: &random) {
                    let event = randomEvent(of: machine, in: state, inBatch: true)
                    events.append(event)
                    if let step = try? machine.machine.send(event, in: state) { state = step.state }
                }
                request = .batch(events)
            }
            planned.append((model, request, session))
        }
        guard !planned.isEmpty || concurrentCatchUp != nil else { return }  // an added runner is caught up

        let store = engine.store
        let watched = slots.map { ($0.name, $0.kind) }
        let context = self.context
        let stop = LockedBox(false)
        let observations = LockedBox<[ProjectionObservation]>([])
        let readerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var seen: Set<String> = []
            while !stop.current {
                if let read = try? ProjectionFuzz.observe(store: store, watched: watched, context: context + " (concurrent)") {
                    for observation in read where seen.insert("\(observation.name) \(observation.checkpoint)").inserted {
                        observations.append(observation)
                    }
                }
                if let read = try? ProjectionFuzz.observePublicReader(store: store, context: context + " (public reader)") {
                    observations.withValue { $0.append(contentsOf: read) }
                }
                usleep(1_500)
            }
            readerDone.signal()
        }
        let catchUpDone = DispatchSemaphore(value: 0)
        let catchUpError = LockedBox<(any Error)?>(nil)
        var catchingUp = 0
        if let slot = concurrentCatchUp, let runner = engine.projections.runner(named: slot.name) {
            // Sometimes two threads catch the same projection up at once (two callers of
            // `catchUpProjections`), in batches of different sizes.
            catchingUp = random.chance(0.3) ? 2 : 1
            if catchingUp == 2 { count("concurrentCatchUp.twice") }
            for _ in 0..<catchingUp {
                let engine = self.engine
                let batchSize = Int.random(in: 1...3, using: &random)
                Thread.detachNewThread {
                    do {
                        try engine.projections.catchUp(runner, store: engine.store, batchSize: batchSize) { _ in }
                    } catch {
                        catchUpError.withValue { $0 = $0 ?? error }
                    }
                    catchUpDone.signal()
                }
            }
        }

        let engine = self.engine
        let outcomes = await withTaskGroup(of: (Int, Session?, Result<[Step], any Error>).self) { group in
            for (index, plan) in planned.enumerated() {
                let request = plan.request
                let existing = plan.session
                let id = plan.model.id
                group.addTask {
                    do {
                        switch request {
                        case .start(let machine):
                            let session: Session
                            if case .start(let context) = machine.opening {
                                session = try await engine.startSession(id: id, machine: machine.name, context: context)
                            } else {
                                session = try engine.makeSession(id: id, machine: machine.name)
                                try await session.run(machine.opening)
                            }
                            return (index, session, .success([]))
                        case .send(let event):
                            guard let existing else { return (index, nil, .success([])) }
                            return (index, existing, .success([try await existing.send(event)]))
                        case .enter(let state, let data):
                            guard let existing else { return (index, nil, .success([])) }
                            return (index, existing, .success([try await existing.enter(state, data: data)]))
                        case .batch(let events):
                            guard let existing else { return (index, nil, .success([])) }
                            return (index, existing, .success(try await existing.send(contentsOf: events)))
                        }
                    } catch {
                        return (index, existing, .failure(error))
                    }
                }
            }
            var outcomes: [(Int, Session?, Result<[Step], any Error>)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }
        }
        if catchingUp > 0 {
            for _ in 0..<catchingUp { catchUpDone.wait() }
            if let error = catchUpError.current, !isInjected(error) { fail("concurrent catch-up threw \(error)") }
        }
        stop.withValue { $0 = true }
        readerDone.wait()
        pending += observations.current

        for (index, session, result) in outcomes {
            let (model, request, _) = planned[index]
            if case .failure = result { count("request.refused") } else { count("request.ok") }
            guard let session else {
                if case .failure(let error) = result { fail("starting \(model.id) (\(model.machine)) threw \(error)") }
                sessions.removeAll { $0 === model && $0.history.isEmpty }
                continue
            }
            model.live = session
            record(request, result: result, of: model, session: session)
        }
    }

    /// Updates the model from the session's live snapshot after `request`.
    func record(_ request: Request, result: Result<[Step], any Error>, of model: ModelSession, session: Session) {
        let snapshot = session.snapshot
        let before = UInt64(model.history.count)
        guard snapshot.version >= before else {
            fail("\(model.id) went back from version \(before) to \(snapshot.version)")
            return
        }
        let added = Int(snapshot.version - before)
        if case .failure(let error) = result, added != 0 {
            fail("\(model.id): \(request) threw \(error) but wrote \(added) records")
        }
        guard added > 0 else { return }
        externalPending = false
        var entries = Array(repeating: ModelSession.Entry(), count: added)
        if case .success(let steps) = result, case .batch(let events) = request, steps.count == added, events.count == added {
            for (index, step) in steps.enumerated() {
                entries[index].configuration = step.state.configuration
                entries[index].event = events[index].name
            }
        } else if added == 1 {
            entries[0].event = request.eventName
        }
        entries[added - 1].configuration = snapshot.state.configuration
        entries[added - 1].navigation = snapshot.navigation
        entries[added - 1].timestamp = snapshot.timestamp
        model.history += entries
    }

    // MARK: Observing

    static func observe(
        store: TransitionStore, watched: [(String, ProjectionKind)], context: String
    ) throws -> [ProjectionObservation] {
        try store.read { transaction in
            let head = try transaction.headSequence()
            var observations: [ProjectionObservation] = []
            for (name, kind) in watched {
                guard let status = try ProjectionRegistry.status(of: name, in: transaction) else { continue }
                let prefix = ProjectionKeys.prefix(name)
                var states: [[UInt8]: [UInt8]] = [:]
                try transaction.forEach(in: .projections, from: prefix) { key, value in
                    guard key.starts(with: prefix) else { return .stop }
                    states[Array(key.dropFirst(prefix.count))] = Array(value)
                    return .next
                }
                observations.append(ProjectionObservation(
                    name: name, kind: kind, checkpoint: status.checkpoint, head: head, failed: status.failure != nil,
                    states: states, exact: true, context: context))
            }
            return observations
        }
    }

    /// `sf.inline` and `nav.inline` read through the public ``ProjectionReader`` (each call its
    /// own transaction), re-encoded.
    static func observePublicReader(store: TransitionStore, context: String) throws -> [ProjectionObservation] {
        var flows: [[UInt8]: [UInt8]] = [:]
        try ProjectionReader(store: store, projection: ScreenFlowProjection(name: "sf.inline")).forEachState { key, flow in
            var bytes: [UInt8] = []
            ScreenFlowProjection().encode(flow, into: &bytes)
            flows[Array(key.utf8)] = bytes
            return .next
        }
        var stacks: [[UInt8]: [UInt8]] = [:]
        try ProjectionReader(store: store, projection: NavigationProjection(name: "nav.inline")).forEachState { key, stack in
            var bytes: [UInt8] = []
            try NavigationProjection().encode(stack, into: &bytes)
            stacks[Array(key.utf8)] = bytes
            return .next
        }
        var dictionary: [[UInt8]: [UInt8]] = [:]
        for (key, flow) in try ProjectionReader(store: store, projection: ScreenFlowProjection(name: "sf.inline")).states() {
            var bytes: [UInt8] = []
            ScreenFlowProjection().encode(flow, into: &bytes)
            dictionary[Array(key.rawValue.utf8)] = bytes
        }
        let head = try store.headSequence()
        return [
            ProjectionObservation(
                name: "sf.inline", kind: .screenFlow, checkpoint: 0, head: head, failed: false, states: dictionary,
                exact: false, context: context + " states()"),
            ProjectionObservation(
                name: "sf.inline", kind: .screenFlow, checkpoint: 0, head: head, failed: false, states: flows,
                exact: false, context: context),
            ProjectionObservation(
                name: "nav.inline", kind: .navigation, checkpoint: 0, head: head, failed: false, states: stacks,
                exact: false, context: context),
        ]
    }

    // MARK: Checking

    func check() async throws {
        let head = try engine.store.headSequence()
        let watched = slots.map { ($0.name, $0.kind) }
        let before = try Self.observe(store: engine.store, watched: watched, context: context + " (before catch-up)")
        pending += before
        for observation in before {
            guard let slot = slots.first(where: { $0.name == observation.name }) else { continue }
            if slot.registered, slot.mode == .inline, !observation.failed, !externalPending, observation.checkpoint != head {
                fail("inline projection \(slot.name) is at \(observation.checkpoint), the log at \(head)")
            }
        }
        for slot in slots { slot.fault?.failAt.withValue { $0 = nil } }
        try engine.catchUpProjections()
        let after = try Self.observe(store: engine.store, watched: watched, context: context + " (caught up)")
        pending += after
        for slot in slots where slot.registered {
            guard let observation = after.first(where: { $0.name == slot.name }) else {
                fail("registered projection \(slot.name) has no checkpoint")
                continue
            }
            if observation.checkpoint != head || observation.failed {
                fail("\(slot.name) caught up to \(observation.checkpoint) (failed: \(observation.failed)), the log is at \(head)")
            }
        }
        // Every way of arriving at the head gives the same bytes.
        for kind in [ProjectionKind.screenFlow, .navigation] {
            let atHead = after.filter { $0.kind == kind && $0.checkpoint == head }
            for observation in atHead.dropFirst() where observation.states != atHead[0].states {
                fail("\(observation.name) differs from \(atHead[0].name) at the head \(head): "
                     + Self.difference(observation.states, atHead[0].states))
            }
        }
        if random.chance(0.3) {
            // A rebuild from scratch stores the same bytes and checkpoints.
            let states = try ProjectionFixtures.entries(of: engine.store, in: .projections)
            let checkpoints = try ProjectionFixtures.entries(of: engine.store, in: .checkpoints)
            for slot in slots where slot.registered { try engine.rebuildProjection(named: slot.name) }
            let rebuilt = try ProjectionFixtures.entries(of: engine.store, in: .projections)
            if rebuilt != states { fail("rebuilding changed the stored states: " + Self.difference(rebuilt, states)) }
            if try ProjectionFixtures.entries(of: engine.store, in: .checkpoints) != checkpoints {
                fail("rebuilding changed the checkpoints")
            }
        }
        // The live sessions' snapshots are the model's last entries.
        for model in sessions {
            guard let live = model.live else { continue }
            let snapshot = live.snapshot
            if snapshot.version != UInt64(model.history.count) {
                fail("\(model.id) is at version \(snapshot.version), the model at \(model.history.count)")
            }
        }
        count("observations.exact", pending.filter(\.exact).count)
        count("observations.public", pending.filter { !$0.exact }.count)
        count("observations.lagging", pending.filter { $0.exact && $0.checkpoint < $0.head }.count)
        count("observations.failed", pending.filter(\.failed).count)
        try await timed("verify") { try verify() }
        pending.removeAll()
    }

    static func difference(_ left: [[UInt8]: [UInt8]], _ right: [[UInt8]: [UInt8]]) -> String {
        let keys = Set(left.keys).union(right.keys).filter { left[$0] != right[$0] }
        return keys.prefix(4).map { key in
            "\(String(decoding: key, as: UTF8.self)): \(left[key].map { "\($0.count) bytes" } ?? "absent") vs "
                + "\(right[key].map { "\($0.count) bytes" } ?? "absent")"
        }.joined(separator: "; ") + " (\(keys.count) keys differ)"
    }

    /// FNV-1a over a state's key and bytes; a projection's hash is the (wrapping) sum over its states.
    static func hash(_ key: [UInt8], _ value: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        hash = (hash ^ 0xFF) &* 0x100_0000_01B3
        for byte in value { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }

    static func hash(_ states: [[UInt8]: [UInt8]]) -> UInt64 {
        states.reduce(0) { $0 &+ hash($1.key, $1.value) }
    }

    /// Folds the log from its first record with the projections' own `apply` (the reference),
    /// checks it against the model at every record, and every pending observation against the
    /// reference at its checkpoint (exact reads) or at some prefix (public reads).
    func verify() throws {
        let records = try engine.store.records(from: 1)
        let flowProjection = ScreenFlowProjection()
        let navigationProjection = NavigationProjection()
        var flows: [[UInt8]: ScreenFlowProjection.Flow] = [:]
        var stacks: [[UInt8]: NavigationProjection.SessionNavigation] = [:]
        var flowBytes: [[UInt8]: [UInt8]] = [:]
        var stackBytes: [[UInt8]: [UInt8]] = [:]
        var flowHash: UInt64 = 0
        var stackHash: UInt64 = 0
        var flowHashes: Set<UInt64> = [0]
        var stackHashes: Set<UInt64> = [0]
        let models = Dictionary(sessions.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var reached: [[UInt8]: (set: Set<String>, known: Bool)] = [:]
        var exact: [UInt64: [ProjectionObservation]] = [:]
        for observation in pending where observation.exact {
            if observation.checkpoint > observation.head {
                fail("\(observation.name) checkpoint \(observation.checkpoint) is ahead of the log's head \(observation.head) (\(observation.context))")
            }
            exact[observation.checkpoint, default: []].append(observation)
        }
        func compare(at sequence: UInt64) {
            for observation in exact[sequence] ?? [] {
                let reference = observation.kind == .screenFlow ? flowBytes : stackBytes
                if observation.states != reference {
                    fail("\(observation.name) at checkpoint \(sequence) (\(observation.context)) is not the reference fold: "
                         + Self.difference(observation.states, reference))
                }
            }
        }
        compare(at: 0)
        for (index, record) in records.enumerated() {
            let sequence = record.sequence
            guard sequence == UInt64(index + 1) else {
                fail("record \(index + 1) has sequence \(sequence)")
                return
            }
            let key = Array(record.session.rawValue.utf8)
            if let old = flowBytes[key] { flowHash &-= Self.hash(key, old) }
            if let old = stackBytes[key] { stackHash &-= Self.hash(key, old) }
            flowProjection.apply(record, to: &flows[key])
            try navigationProjection.apply(record, to: &stacks[key])
            var bytes: [UInt8] = []
            flowProjection.encode(flows[key]!, into: &bytes)
            flowBytes[key] = bytes
            flowHash &+= Self.hash(key, bytes)
            bytes = []
            try navigationProjection.encode(stacks[key]!, into: &bytes)
            stackBytes[key] = bytes
            stackHash &+= Self.hash(key, bytes)
            flowHashes.insert(flowHash)
            stackHashes.insert(stackHash)
            compare(at: sequence)

            // The reference against the model of the sessions' snapshots.
            guard let model = models[key] else {
                fail("record \(sequence) belongs to \(record.session), unknown to the model")
                continue
            }
            let version = Int(record.version)
            guard version >= 1, version <= model.history.count else {
                fail("record \(sequence) is version \(version) of \(model.id), the model has \(model.history.count)")
                continue
            }
            let entry = model.history[version - 1]
            let flow = flows[key]!
            var problems: [String] = []
            if flow.machine != model.machine { problems.append("machine \(flow.machine) ≠ \(model.machine)") }
            if flow.version != record.version { problems.append("version \(flow.version) ≠ \(record.version)") }
            if let configuration = entry.configuration, flow.configuration != configuration {
                problems.append("configuration \(flow.configuration) ≠ \(configuration)")
            }
            if let event = entry.event, flow.lastEvent != event { problems.append("last event \(flow.lastEvent) ≠ \(event)") }
            if let timestamp = entry.timestamp, flow.updated != timestamp { problems.append("time \(flow.updated) ≠ \(timestamp)") }
            var seen = reached[key] ?? (set: [], known: true)
            if let configuration = entry.configuration { seen.set.formUnion(configuration) } else { seen.known = false }
            reached[key] = seen
            if seen.known, flow.reached != seen.set.sorted() {
                problems.append("reached \(flow.reached) ≠ \(seen.set.sorted())")
            }
            if let navigation = entry.navigation, stacks[key]?.stack != navigation {
                problems.append("stack \(stacks[key]?.stack.screens ?? []) ≠ \(navigation.screens)")
            }
            if !problems.isEmpty {
                fail("record \(sequence) (\(model.id) v\(version), \(record.event)) disagrees with the model: "
                     + problems.joined(separator: ", "))
            }
        }
        let head = UInt64(records.count)
        for (checkpoint, observations) in exact where checkpoint > head {
            for observation in observations {
                fail("\(observation.name) checkpoint \(checkpoint) is beyond the log (\(head)) (\(observation.context))")
            }
        }
        for model in sessions where flows[model.key]?.version ?? 0 != UInt64(model.history.count) {
            fail("\(model.id): the log holds \(flows[model.key]?.version ?? 0) versions, the model \(model.history.count)")
        }
        for observation in pending where !observation.exact {
            let hashes = observation.kind == .screenFlow ? flowHashes : stackHashes
            if !hashes.contains(Self.hash(observation.states)) {
                fail("\(observation.name) read through ProjectionReader (\(observation.context)) matches no prefix of the log")
            }
        }
    }
}
