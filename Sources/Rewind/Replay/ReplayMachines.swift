import RewindMachine
import RewindStore

/// Finds, for each definition a session's records name, the machine that re-runs them: a
/// registered machine (``LogReplay``'s, or the engine's) whose content version it is, else the
/// definition stored beside the log (compiled with the caller's bindings). Compiled machines are
/// cached by content version.
struct ReplayMachines: Sendable {
    /// Where stored definitions are read when no reader is at hand.
    let log: any TransitionLog
    /// Machines by the content version of their definition.
    let registered: [String: Machine]
    let machineName: String
    let bindings: Bindings
    let coder: any PayloadCoder
    private var cache = DefinitionTable<CompiledRecording>()

    /// A mapping the cache holds, shared by reference: handed out by value for every record, the
    /// `StepRecording` (its machine's tables, definition and bindings, its coder) was copied and
    /// destroyed each time, ~490 instructions of every record an import re-runs (callgrind,
    /// Benchmarks/HISTORY.md 2026-12-02).
    final class CompiledRecording: Sendable {
        let recording: StepRecording

        init(_ recording: StepRecording) {
            self.recording = recording
        }
    }

    init(
        log: any TransitionLog, registered: [String: Machine], machineName: String, bindings: Bindings,
        coder: any PayloadCoder
    ) {
        self.log = log
        self.registered = registered
        self.machineName = machineName
        self.bindings = bindings
        self.coder = coder
    }

    /// The step ↔ record mapping for records written under `definition`; a stored definition is
    /// read through `reader` (through a new reader of ``log`` when `nil`).
    ///
    /// - Throws: ``ReplayError/missingDefinition(machine:version:)``,
    ///   ``ReplayError/definitionNeedsBindings(machine:version:guards:actions:)``,
    ///   ``ReplayError/invalidStoredDefinition(machine:version:cause:)``, the log's errors.
    mutating func recording(
        for definition: String, in reader: (any TransitionLogReader)? = nil
    ) throws -> StepRecording {
        try compiled(for: definition, in: reader).recording
    }

    /// ``recording(for:in:)``, as the cache holds it, for a caller with a reader: the reader is
    /// wrapped in an optional (a copy of the existential, and its destruction: ~145 instructions
    /// of every re-run record) only when the definition is not cached yet.
    private mutating func compiled(
        for definition: String, in reader: any TransitionLogReader
    ) throws -> CompiledRecording {
        if let cached = cache.value(for: definition) { return cached }
        return try compiled(for: definition, in: Optional(reader))
    }

    /// ``recording(for:in:)``, as the cache holds it.
    private mutating func compiled(
        for definition: String, in reader: (any TransitionLogReader)?
    ) throws -> CompiledRecording {
        if let cached = cache.value(for: definition) { return cached }
        let machine: Machine
        if let registered = registered[definition] {
            machine = registered
        } else {
            let name = machineName
            let read = { (reader: any TransitionLogReader) in
                try reader.storedDefinition(name: name, version: definition)
            }
            guard let stored = try reader.map(read) ?? log.readLog(read) else {
                throw ReplayError.missingDefinition(machine: machineName, version: definition)
            }
            machine = try Self.compile(stored, bindings: bindings, name: machineName, version: definition)
        }
        let compiled = CompiledRecording(
            StepRecording(machine: machine, machineName: machineName, definition: definition, coder: coder))
        cache.set(compiled, for: definition)
        return compiled
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
        before record: TransitionRecord, from snapshot: SessionSnapshot, in reader: any TransitionLogReader
    ) throws -> SessionSnapshot {
        var before = snapshot
        try prepare(&before, for: record, in: reader)
        return before
    }

    /// Makes `snapshot`, the session's state at the version before `record`, the state `record`
    /// is re-run on (``state(before:from:in:)``): unchanged but after a migration.
    mutating func prepare(
        _ snapshot: inout SessionSnapshot, for record: TransitionRecord, in reader: any TransitionLogReader
    ) throws {
        guard StepRecording.isFirstAfterMigration(record, on: snapshot) else { return }
        let migrated = try recording(for: record.definition, in: reader).migrated(
            record.session, before: record.version, in: reader)
        guard migrated.version == snapshot.version else {
            throw EngineError.corruptedEntry(
                what: "the session index of '\(record.session)'",
                reason: "version \(migrated.version + 1) is missing")
        }
        snapshot = migrated
    }

    /// `record` re-run on `snapshot` (the session's state at the version before it) with the
    /// definition it names, checked to reach its recorded target: the record, its decoded request,
    /// its mapping and the state after it.
    mutating func replay(
        _ record: TransitionRecord, on snapshot: SessionSnapshot, in reader: any TransitionLogReader
    ) throws -> (RecordedStep, SessionSnapshot) {
        var after = snapshot
        let step = try replay(record, advancing: &after, in: reader)
        return (step, after)
    }

    /// ``replay(_:on:in:)`` in place: `snapshot` moves to the state after `record` (on error it
    /// may be half-changed: the caller drops it).
    mutating func replay(
        _ record: TransitionRecord, advancing snapshot: inout SessionSnapshot, in reader: any TransitionLogReader
    ) throws -> RecordedStep {
        let (compiled, request) = try rerun(record, advancing: &snapshot, in: reader)
        return RecordedStep(record: record, request: request, recording: compiled.recording)
    }

    /// Moves `snapshot` to the state after `record`, re-run as ``replay(_:on:in:)`` does, without
    /// the step: an import's snapshots and a store check need the state only, and made and dropped
    /// a step's copies for every record.
    mutating func advance(
        _ snapshot: inout SessionSnapshot, by record: TransitionRecord, in reader: any TransitionLogReader
    ) throws {
        _ = try rerun(record, advancing: &snapshot, in: reader)
    }

    /// ``replay(_:advancing:in:)``'s work: the record's mapping and its decoded request, `snapshot`
    /// moved on in place.
    private mutating func rerun(
        _ record: TransitionRecord, advancing snapshot: inout SessionSnapshot, in reader: any TransitionLogReader
    ) throws -> (compiled: CompiledRecording, request: StepRecording.Request) {
        let compiled = try compiled(for: record.definition, in: reader)
        let request = try compiled.recording.request(of: record)
        try prepare(&snapshot, for: record, in: reader)
        _ = try compiled.recording.replay(record, request: request, advancing: &snapshot, in: reader)
        return (compiled, request)
    }

    /// The session's state at `version` (the nearest snapshot the reader keeps at or before it,
    /// plus the records after it, each re-run with the definition it names:
    /// `SessionSnapshot.rebuilt`), with the record of that version and its decoded request
    /// (`nil` at version 0).
    mutating func rebuild(
        _ session: SessionID, at version: UInt64, in reader: any TransitionLogReader
    ) throws -> (SessionSnapshot, RecordedStep?) {
        var last: RecordedStep?
        let snapshot = try SessionSnapshot.rebuilt(session, at: version, in: reader) { record, snapshot in
            last = try replay(record, advancing: &snapshot, in: reader)
        }
        if last == nil, version > 0,
            let record = try reader.records(of: session, fromVersion: version, limit: 1).first
        {
            let recording = try recording(for: record.definition, in: reader)
            last = RecordedStep(record: record, request: try recording.request(of: record), recording: recording)
        }
        if version > 0, last?.record.version != version {
            throw EngineError.corruptedEntry(
                what: "the session index of '\(session.excerpt)'", reason: "version \(version) is missing")
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
