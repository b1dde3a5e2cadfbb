import RewindMachine
import RewindStore

/// Finds, for each definition a session's records name, the machine that re-runs them: the one
/// registered with the engine when its content version matches, else the stored definition
/// (compiled with the caller's bindings). Compiled machines are cached by content version.
struct ReplayMachines: Sendable {
    let engine: Engine
    let machineName: String
    let bindings: Bindings
    private var cache: [String: StepRecording] = [:]

    init(engine: Engine, machineName: String, bindings: Bindings) {
        self.engine = engine
        self.machineName = machineName
        self.bindings = bindings
    }

    /// The step ↔ record mapping for records written under `definition`.
    ///
    /// - Throws: ``ReplayError/missingDefinition(machine:version:)``,
    ///   ``ReplayError/definitionNeedsBindings(machine:version:guards:actions:)``,
    ///   ``ReplayError/invalidStoredDefinition(machine:version:reason:)``.
    mutating func recording(for definition: String) throws -> StepRecording {
        if let cached = cache[definition] { return cached }
        let machine: Machine
        if let registered = engine.machine(named: machineName), registered.definition.contentVersion == definition {
            machine = registered
        } else {
            guard let stored = try engine.storedDefinition(name: machineName, version: definition) else {
                throw ReplayError.missingDefinition(machine: machineName, version: definition)
            }
            machine = try Self.compile(stored, bindings: bindings, name: machineName, version: definition)
        }
        let recording = StepRecording(
            machine: machine, machineName: machineName, definition: definition, coder: engine.store.coder)
        cache[definition] = recording
        return recording
    }

    /// Compiles a stored definition, reporting missing bindings as their own error.
    static func compile(
        _ definition: MachineDefinition, bindings: Bindings, name: String, version: String
    ) throws -> Machine {
        do {
            return try Machine(definition, bindings: bindings)
        } catch MachineError.invalidDefinition(let problems) {
            var guards: [String] = []
            var actions: [String] = []
            for problem in problems {
                switch problem.problem {
                case .unboundGuard(let name): guards.append(name)
                case .unboundAction(let name): actions.append(name)
                default: break
                }
            }
            if guards.count + actions.count == problems.count {
                throw ReplayError.definitionNeedsBindings(
                    machine: name, version: version, guards: guards, actions: actions)
            }
            throw ReplayError.invalidStoredDefinition(
                machine: name, version: version, reason: MachineError.invalidDefinition(problems).description)
        }
    }

    /// The session's state at `version` (nearest snapshot at or before it, plus the records
    /// after it) and the record of that version (`nil` at version 0).
    mutating func rebuild(
        _ session: SessionID, at version: UInt64, in transaction: StoreReadTransaction
    ) throws -> (SessionSnapshot, TransitionRecord?) {
        var snapshot = try SessionSnapshot.latest(of: session, atOrBefore: version, in: transaction)
            ?? .empty(definition: "")
        var last: TransitionRecord?
        if snapshot.version < version {
            try transaction.forEachRecord(of: session, from: snapshot.version + 1) { record in
                guard record.version <= version else { return .stop }
                snapshot = try recording(for: record.definition).replay(record, on: snapshot).1
                last = record
                return record.version == version ? .stop : .next
            }
        } else if version > 0 {
            last = try transaction.records(of: session, from: version, limit: 1).first
        }
        if version > 0, last?.version != version {
            throw EngineError.corruptedEntry(
                what: "the session index of '\(session)'", reason: "version \(version) is missing")
        }
        return (snapshot, last)
    }
}
