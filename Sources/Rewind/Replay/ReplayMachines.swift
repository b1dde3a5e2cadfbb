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
    ///   ``ReplayError/invalidStoredDefinition(machine:version:cause:)``.
    mutating func recording(for definition: String) throws -> StepRecording {
        if let cached = cache[definition] { return cached }
        let machine: Machine
        if let registered = engine.registeredRecording(named: machineName), registered.definition == definition {
            machine = registered.machine
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
                machine: name, version: version, cause: ErrorCause(MachineError.invalidDefinition(problems)))
        }
    }

    /// The state `record` is re-run on, given `snapshot`, the session's state at the version
    /// before it: `snapshot` itself, or, when `record` is the first after a migration, the state
    /// the migration left (every record before it re-run through `record`'s definition; see
    /// `StepRecording.migrated(replaying:)`).
    mutating func state(
        before record: TransitionRecord, from snapshot: SessionSnapshot, in transaction: StoreReadTransaction
    ) throws -> SessionSnapshot {
        guard StepRecording.isFirstAfterMigration(record, on: snapshot) else { return snapshot }
        let migrated = try recording(for: record.definition).migrated(
            record.session, before: record.version, in: transaction)
        guard migrated.version == snapshot.version else {
            throw EngineError.corruptedEntry(
                what: "the session index of '\(record.session)'",
                reason: "version \(migrated.version + 1) is missing")
        }
        return migrated
    }

    /// The session's state at `version` (nearest snapshot at or before it, plus the records
    /// after it, each re-run with the definition it names: `SessionSnapshot.rebuilt`), with the
    /// record of that version and its decoded request (`nil` at version 0).
    mutating func rebuild(
        _ session: SessionID, at version: UInt64, in transaction: StoreReadTransaction
    ) throws -> (SessionSnapshot, RecordedStep?) {
        var last: RecordedStep?
        let snapshot = try SessionSnapshot.rebuilt(session, at: version, in: transaction) { record, snapshot in
            let recording = try recording(for: record.definition)
            let request = try recording.request(of: record)
            let before = try state(before: record, from: snapshot, in: transaction)
            last = RecordedStep(record: record, request: request, recording: recording)
            return try recording.replay(record, request: request, on: before).1
        }
        if last == nil, version > 0, let record = try transaction.records(of: session, from: version, limit: 1).first {
            let recording = try recording(for: record.definition)
            last = RecordedStep(record: record, request: try recording.request(of: record), recording: recording)
        }
        if version > 0, last?.record.version != version {
            throw EngineError.corruptedEntry(
                what: "the session index of '\(session)'", reason: "version \(version) is missing")
        }
        return (snapshot, last)
    }
}

/// A record with its decoded request and the mapping that re-runs it.
struct RecordedStep: Sendable {
    var record: TransitionRecord
    var request: StepRecording.Request
    var recording: StepRecording
}
