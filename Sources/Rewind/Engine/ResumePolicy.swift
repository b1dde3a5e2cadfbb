/// What `session(_:policy:)` does when a session's records were written under another
/// definition of its machine than the one registered now (a session whose last record names the
/// registered definition resumes the same way under every policy).
///
/// Under ``upgradeWhenCompatible`` and ``replayWithRegistered`` the move to the registered
/// definition is appended as a `rewind.migrate` record (``RecordedMigration``) together with the
/// session's next record, so replay, diff, history and verify show it (see *Durable sessions*,
/// "Upgrades").
public enum ResumePolicy: Sendable, Hashable {
    /// Refuse with ``EngineError/definitionMismatch(session:machine:recorded:registered:)``.
    case strict
    /// The default: continue under the registered definition from the session's latest state
    /// (its latest snapshot and the records after it, re-run with the definition they were
    /// written under), when that state means the same there: every state of its configuration,
    /// history memory, state data and navigation stack exists in the registered definition under
    /// the same ancestors (and with the same kind where that matters). The registered
    /// ``DefinitionMigration``s that apply run first (renames, transforms). States, transitions,
    /// guards or actions added or changed elsewhere need nothing. Otherwise it throws
    /// ``EngineError/incompatibleDefinition(session:machine:recorded:registered:problems:)``
    /// naming each state that is missing or moved.
    case upgradeWhenCompatible
    /// Migrate by replay: re-run every recorded event through the registered definition (from
    /// version 1, ignoring snapshots; a trimmed session's from its base snapshot, keeping what
    /// the old definition computed up to the base) and continue from what it computes; fails with
    /// ``EngineError/replayDivergence(session:version:event:recorded:computed:)`` or
    /// ``EngineError/replayFailed(session:version:event:cause:)`` when the new definition does not
    /// reproduce the recording.
    case replayWithRegistered
}
