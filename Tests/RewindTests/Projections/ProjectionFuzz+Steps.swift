import Dispatch
import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// The fuzz's random steps and the requests they make.
extension ProjectionFuzz {
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
            print(
                "seed \(seed): head \(head), sessions \(sessions.count), \(counts.sorted { $0.key < $1.key }), "
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
        let kind =
            switch roll {
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
                return
                    "\(slot.name)\(slot.registered ? (slot.mode == .inline ? "[i]" : "[c]") : "[-]")=\(status.map { "\($0.checkpoint)\($0.failure == nil ? "" : "!")" } ?? "nil")"
            }
            print(
                "TRACE \(context) \(kind) head \((try? engine.store.headSequence()) ?? 0) \(statuses.joined(separator: " "))"
            )
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
                do { try engine.rebuildProjection(named: slot.name) } catch {
                    guard isInjected(error) else { throw error }
                }
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
}
