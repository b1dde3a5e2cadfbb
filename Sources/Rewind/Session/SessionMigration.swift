import RewindStore

/// A migration (``ResumePolicy/replayWithRegistered``): the session resumed under another
/// definition of its machine than the one its records were written under. The engine re-runs
/// every recorded request from the start through the new definition and continues from what that
/// computes; the records it appends from then on name the new definition.
///
/// The log shows a migration where a record names another definition than the record before it
/// (the engine writes under one definition per session, and resuming under another one is refused
/// unless the caller migrates). Replay re-creates it there, with the same computation, so a
/// replayed state after a migration is the live one even where the new definition computes
/// another context, state data, history memory or pending sends for the old events.
extension StepRecording {
    /// The session as a migration to this recording's definition leaves it: the records `records`
    /// hands to its visitor (the session's first versions, in order) re-run from the start
    /// through this definition, each checked to reach its recorded target.
    ///
    /// - Throws: ``EngineError/replayFailed(session:version:event:reason:)`` or
    ///   ``EngineError/replayDivergence(session:version:event:recorded:computed:)`` when this
    ///   definition does not reproduce a record; what `records` throws.
    func migrated(
        replaying records: (_ visit: (TransitionRecord) throws -> Void) throws -> Void
    ) throws -> SessionSnapshot {
        var snapshot = SessionSnapshot.empty(definition: definition)
        try records { record in snapshot = try replay(record, on: snapshot).1 }
        snapshot.definition = definition
        return snapshot
    }

    /// The session `session` as a migration to this recording's definition leaves it, from its
    /// records in `transaction` before version `end` (all of them when `nil`); see
    /// ``migrated(replaying:)``.
    func migrated(
        _ session: SessionID, before end: UInt64? = nil, in transaction: StoreReadTransaction
    ) throws -> SessionSnapshot {
        try migrated { visit in
            try transaction.forEachRecord(of: session, from: 1) { record in
                if let end, record.version >= end { return .stop }
                try visit(record)
                return .next
            }
        }
    }

    /// Whether `record`, re-run on `snapshot` (the session's state at the version before it), is
    /// the first record after a migration: it names another definition than the records before
    /// it.
    static func isFirstAfterMigration(_ record: TransitionRecord, on snapshot: SessionSnapshot) -> Bool {
        snapshot.version > 0 && snapshot.definition != record.definition
    }
}
