import RewindMachine
import RewindStore

/// Moving a session to another definition of its machine: the session resumed under another
/// definition than the one its records were written under.
///
/// With ``ResumePolicy/upgradeWhenCompatible`` the session continues from its state at its head
/// (the declared ``DefinitionMigration``s applied), checked to be a state of the new definition;
/// with ``ResumePolicy/replayWithRegistered`` the engine re-runs every recorded request from the
/// start through the new definition and continues from what that computes. A trimmed session
/// (``Engine/trimHistory(of:before:)``) has no start: its records after the base are re-run from
/// its base snapshot, so what the old definition computed up to the base (context, state data,
/// history memory, pending sends) is kept. Either way the move
/// is appended as a `rewind.migrate` record (``StepRecording/migrateEvent``, a
/// ``RecordedMigration``) before the session's first record under the new definition, in the
/// same commit, and replay takes the state after it from that record.
///
/// Logs written before migration records existed show a migration (``ResumePolicy/replayWithRegistered``
/// only) where a record names another definition than the record before it. Replay re-creates it
/// there, with the same computation, so a replayed state after it is the live one even where the
/// new definition computes another context, state data, history memory or pending sends for the
/// old events.
extension StepRecording {
    /// The session `session` as a migration to this recording's definition leaves it: its records
    /// through version `last` (all of them when `nil`), read by `records`, re-run from the start
    /// through this definition (`SessionSnapshot.rebuilt`), each checked to reach its recorded
    /// target.
    ///
    /// - Throws: ``EngineError/replayFailed(session:version:event:cause:)`` or
    ///   ``EngineError/replayDivergence(session:version:event:recorded:computed:)`` when this
    ///   definition does not reproduce a record, ``EngineError/corruptedEntry(what:reason:)``
    ///   when a version is missing; what `records` throws.
    func migrated(
        _ session: SessionID, through last: UInt64?, from start: SessionSnapshot? = nil,
        records: SessionSnapshot.RecordReader
    ) throws -> SessionSnapshot {
        var snapshot = try SessionSnapshot.rebuilt(
            session, at: last, from: start ?? .empty(definition: definition), records: records
        ) { record, snapshot in _ = try replay(record, request: try request(of: record), advancing: &snapshot) }
        snapshot.definition = definition
        return snapshot
    }

    /// The session `session` as a migration to this recording's definition leaves it, from its
    /// records in `reader` before version `end` (all of them when `nil`); see
    /// ``migrated(_:through:from:records:)``. A trimmed session's records after its base are
    /// re-run from its base snapshot (its records from version 1 are gone).
    ///
    /// - Throws: the errors of ``migrated(_:through:from:records:)``;
    ///   ``ReplayError/historyTrimmed(session:requested:firstVersion:)`` when `end` is at or below
    ///   a trimmed session's base; ``EngineError/corruptedEntry(what:reason:cause:)`` when its base
    ///   snapshot is missing.
    func migrated(
        _ session: SessionID, before end: UInt64? = nil, in reader: any TransitionLogReader
    ) throws -> SessionSnapshot {
        let last = end.map { $0 - 1 }
        let records = SessionSnapshot.records(of: session, through: last, in: reader)
        guard let base = try reader.sessionInfo(for: session)?.baseVersion else {
            return try migrated(session, through: last, records: records)
        }
        if let last, last < base {
            throw ReplayError.historyTrimmed(session: session, requested: last, firstVersion: base)
        }
        let start = try SessionSnapshot.base(of: session, at: base, in: reader)
        return try migrated(session, through: last, from: start, records: records)
    }

    /// Whether `record`, re-run on `snapshot` (the session's state at the version before it), is
    /// the first record after a migration that left no `rewind.migrate` record (a log written
    /// before those existed): it names another definition than the records before it and is not
    /// itself a migration record.
    static func isFirstAfterMigration(_ record: TransitionRecord, on snapshot: SessionSnapshot) -> Bool {
        snapshot.version > 0 && snapshot.definition != record.definition && record.event != migrateEvent
    }
}

extension StepRecording {
    /// The `rewind.migrate` record (``migrateEvent``) of `migration` under this recording's
    /// definition, from the configuration `source` and the navigation stack `navigation` before
    /// it. Its timestamp is set when it is appended.
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the payload cannot be encoded.
    func transition(
        for migration: RecordedMigration, source: [String], navigation: ScreenStack
    ) throws -> TransitionDraft {
        var migration = migration
        var redacted = false
        if let redactor { migration = redactor.redact(migration, changed: &redacted) }
        let payload: [UInt8]
        do {
            payload = try coder.encode(migration.payload)
        } catch {
            throw EngineError.payloadEncoding(event: Self.migrateEvent, cause: ErrorCause(error))
        }
        return TransitionDraft(
            timestamp: Timestamp(microsecondsSince1970: 0), machine: machineName, definition: definition,
            event: Self.migrateEvent, source: source, target: migration.state.configuration,
            navigation: RecordedMigration.operations(from: navigation, to: migration.navigation), payload: payload,
            redacted: redacted)
    }
}

/// Where a resumed session stands: its state, and the `rewind.migrate` record to append before its
/// next record when it resumed under another definition than its records name.
struct ResumedState {
    var snapshot: SessionSnapshot
    var migration: TransitionDraft?
}

extension LogReplay {
    /// The state of session `id` at version `head` as recorded: the latest snapshot `reader`
    /// keeps at or before it and the records after it re-run, each with the definition it was
    /// written under (a registered machine's when it is one, else the stored definition compiled
    /// with this replay's bindings; when that does not compile, with `registered`, still checked
    /// to reach every recorded target).
    func recordedState(
        of id: SessionID, at head: UInt64, registered: StepRecording, in reader: any TransitionLogReader
    ) throws -> SessionSnapshot {
        var machines = machines(for: registered.machineName)
        return try SessionSnapshot.rebuilt(id, at: head, in: reader) { record, snapshot in
            let recording: StepRecording
            do {
                recording = try machines.recording(for: record.definition, in: reader)
            } catch is ReplayError {
                recording = registered
            }
            try machines.prepare(&snapshot, for: record, in: reader)
            _ = try recording.replay(
                record, request: try recording.request(of: record), advancing: &snapshot, in: reader)
        }
    }
}

/// A recorded state moved to another definition by ``StepRecording/upgrade(_:of:migrations:formerDefinition:)``.
struct DefinitionUpgrade {
    /// The state under the new definition.
    var snapshot: SessionSnapshot
    /// What the `rewind.migrate` record of the move says.
    var migration: RecordedMigration
    /// The names of the migrations that changed the state or the navigation stack, in order (a
    /// migration that applies but renames nothing the session has is not among them).
    var changedBy: [String]
}

extension StepRecording {
    /// The session `id`, recorded as `recorded` (its state at its head), moved to this recording's
    /// definition (``ResumePolicy/upgradeWhenCompatible``): the `migrations` that apply to its
    /// definition run in order (renames, then transform); the result must be a state of this
    /// definition with every state where the recorded one had it (where that was is read from
    /// `formerDefinition`, the definition it was recorded under, when known).
    ///
    /// - Throws: ``EngineError/incompatibleDefinition(session:machine:recorded:registered:problems:)``,
    ///   ``EngineError/migrationFailed(session:migration:cause:)``.
    func upgrade(
        _ recorded: SessionSnapshot, of id: SessionID, migrations: [DefinitionMigration],
        formerDefinition: () -> MachineDefinition?
    ) throws -> DefinitionUpgrade {
        let from = recorded.definition
        var migrated = recorded
        var applied: [String] = []
        var changedBy: [String] = []
        var maps: [[String: String]] = []
        var transformed = false
        for migration in migrations where migration.applies(to: from) {
            let before = migrated
            migrated = migration.renaming(migrated)
            if let transform = migration.transform {
                var changed = migrated
                do {
                    try transform(&changed)
                } catch {
                    throw EngineError.migrationFailed(session: id, migration: migration.name, cause: ErrorCause(error))
                }
                migrated.state = changed.state
                migrated.navigation = changed.navigation
                transformed = true
            }
            applied.append(migration.name)
            if migrated.state != before.state || migrated.navigation != before.navigation {
                changedBy.append(migration.name)
            }
            maps.append(migration.renamed)
        }
        func renamed(_ id: String) -> String { maps.reduce(id) { $1[$0] ?? $0 } }
        let state = recorded.state
        var recordedIDs = state.configuration + state.data.keys + recorded.navigation.screens
        for (history, memory) in state.history { recordedIDs += [history] + memory }
        let formerIDs = Dictionary(recordedIDs.map { (renamed($0), $0) }, uniquingKeysWith: { first, _ in first })

        let outline = DefinitionOutline(machine.definition)
        migrated.state.configuration = outline.inDocumentOrder(migrated.state.configuration)
        migrated.state.history = migrated.state.history.mapValues(outline.inDocumentOrder)
        // Where each state was is known from the stored definition, unless a transform rewrote the
        // state: then only whether it is a state of this definition is checked.
        let former = transformed ? nil : formerDefinition().map(DefinitionOutline.init)
        let problems = outline.incompatibilities(
            of: migrated, former: former, formerID: { formerIDs[$0] ?? $0 }, renamed: renamed)
        guard problems.isEmpty else {
            throw EngineError.incompatibleDefinition(
                session: id, machine: machineName, recorded: from, registered: definition, problems: problems)
        }
        migrated.definition = definition
        var composite: [String: String] = [:]
        for old in Set(maps.flatMap(\.keys)) where renamed(old) != old { composite[old] = renamed(old) }
        let record = RecordedMigration(
            from: from, to: definition, renamed: composite, migrations: applied, replayed: false,
            state: migrated.state, navigation: migrated.navigation)
        return DefinitionUpgrade(snapshot: migrated, migration: record, changedBy: changedBy)
    }
}

extension Engine {
    /// The state of session `id` at version `head` as recorded (see
    /// `LogReplay.recordedState(of:at:registered:in:)`), stored definitions compiled with the
    /// registered machine's bindings.
    func recordedState(
        of id: SessionID, at head: UInt64, registered: StepRecording, in transaction: StoreReadTransaction
    ) throws -> SessionSnapshot {
        try logReplay(bindings: registered.machine.bindings).recordedState(
            of: id, at: head, registered: registered, in: transaction)
    }

    /// The session `id`, recorded as `recorded` (its state at its head), moved to the registered
    /// definition of `registered` with the migrations registered with it (see
    /// `StepRecording.upgrade(_:of:migrations:formerDefinition:)`). Returns the moved state and
    /// its `rewind.migrate` record.
    ///
    /// - Throws: ``EngineError/incompatibleDefinition(session:machine:recorded:registered:problems:)``,
    ///   ``EngineError/migrationFailed(session:migration:cause:)``,
    ///   ``EngineError/payloadEncoding(event:cause:)``.
    func upgrade(_ recorded: SessionSnapshot, of id: SessionID, to registered: StepRecording) throws -> ResumedState {
        let upgrade = try registered.upgrade(
            recorded, of: id, migrations: registeredMigrations(named: registered.machineName)
        ) {
            (try? storedDefinition(name: registered.machineName, version: recorded.definition)) ?? nil
        }
        return ResumedState(
            snapshot: upgrade.snapshot,
            migration: try registered.transition(
                for: upgrade.migration, source: recorded.state.configuration, navigation: recorded.navigation))
    }
}
