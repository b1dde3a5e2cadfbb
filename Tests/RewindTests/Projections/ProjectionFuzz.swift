import Dispatch
import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// One seed's run of the projection fuzz: the engine, the model sessions and the projection slots.
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
            let enterStates: [String] =
                switch scenario.name {
                case "kanji": ["all", "detail", "list"]
                case "map": ["start", "preview", "navigation"]
                default: ["home", "idle", "post"]
                }
            machines.append(
                FuzzMachine(
                    name: scenario.name, machine: machine, opening: scenario.opening,
                    events: machine.definition.eventNames + ["bogus"], enterStates: enterStates))
        }
        let mixed = try Machine(MixedFeatureChart.definition(delayedSend: false), bindings: MixedFeatureChart.bindings)
        machines.append(
            FuzzMachine(
                name: "mixed", machine: mixed, opening: .start(context: .object(["count": .number(0)])),
                events: mixed.definition.eventNames + ["bogus"], enterStates: ["a", "b", "p"]))
        self.machines = machines

        let faultGeneral = FaultSwitch()
        let faultLateNavigation = FaultSwitch()
        let faultLateGeneral = FaultSwitch()
        var random = self.random
        func later() -> Int { Int.random(in: 1...max(2, ProjectionDifferentialFuzzTests.steps / 2), using: &random) }
        slots = [
            ProjectionSlot(
                name: "sf.inline", kind: .screenFlow, fault: nil, fromStart: true, general: false, registerAt: 0),
            ProjectionSlot(
                name: "nav.inline", kind: .navigation, fault: nil, fromStart: true, general: false, registerAt: 0),
            ProjectionSlot(
                name: "sf.general", kind: .screenFlow, fault: faultGeneral, fromStart: true, general: true,
                registerAt: 0),
            ProjectionSlot(
                name: "sf.catchup", kind: .screenFlow, fault: nil, fromStart: false, general: false, registerAt: 0),
            ProjectionSlot(
                name: "sf.late", kind: .screenFlow, fault: nil, fromStart: false, general: false, registerAt: later()),
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

    static func openEngine(directory: TemporaryDirectory, machines: [FuzzMachine], slots: [ProjectionSlot]) throws
        -> Engine
    {
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
        if case ProjectionError.applyFailed(let projection, let sequence, _, let reason) = error,
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
                fail(
                    "session \(model.id) resumed with stack \(snapshot.navigation.screens), the model says \(navigation.screens)"
                )
            }
        }
        return session
    }
}
