import RewindMachine
import RewindStore

/// The state of a session at version N, rebuilt from its records: the one implementation behind
/// resuming a session (`Engine.loadSnapshot`, `Engine.recordedState`), ``ReplayCursor``
/// (`ReplayMachines.rebuild`), verification (`Engine.verify(_:against:)`) and migration by replay
/// (`StepRecording.migrated`), which differ only in where they start and how they re-run one
/// record.
extension SessionSnapshot {
    /// Reads a session's records in version order from version `first` on, handing each to
    /// `visit` until the records end or `visit` returns `false`.
    typealias RecordReader = (_ first: UInt64, _ visit: (TransitionRecord) throws -> Bool) throws -> Void

    /// The records of `session` in `transaction`.
    static func records(of session: SessionID, in transaction: StoreReadTransaction) -> RecordReader {
        { first, visit in
            try transaction.forEachRecord(of: session, from: first) { try visit($0) ? .next : .stop }
        }
    }

    /// The state of `session` at `version` (through its last record when `nil`): `start`, then
    /// each record from `firstVersion` (by default the one after `start`'s version) up to
    /// `version` re-run by `replay`, which gets the record and the state at the version before it
    /// and returns the state after it (`StepRecording.replay(_:on:)`, checked to reach the
    /// recorded target, for most callers).
    ///
    /// - Throws: ``EngineError/corruptedEntry(what:reason:)`` when a version between is missing;
    ///   what `records` and `replay` throw.
    static func rebuilt(
        _ session: SessionID, at version: UInt64?, from start: SessionSnapshot, firstVersion: UInt64? = nil,
        records: RecordReader, replay: (TransitionRecord, SessionSnapshot) throws -> SessionSnapshot
    ) throws -> SessionSnapshot {
        var snapshot = start
        var expected = firstVersion ?? start.version + 1
        if let version, expected > version { return snapshot }
        // Two non-escaping closures, one called from inside the other (neither keeps it).
        try withoutActuallyEscaping(replay) { replay in
            try records(expected) { record in
                if let version, record.version > version { return false }
                guard record.version == expected else { throw missing(expected, of: session) }
                snapshot = try replay(record, snapshot)
                expected += 1
                return version.map { record.version < $0 } ?? true
            }
        }
        if let version, expected <= version { throw missing(expected, of: session) }
        return snapshot
    }

    /// The state of `session` at `version`: its latest snapshot stored at or before `version`
    /// (the empty state when none is), then the records after it re-run by `replay` (see
    /// ``rebuilt(_:at:from:firstVersion:records:replay:)``).
    static func rebuilt(
        _ session: SessionID, at version: UInt64, in transaction: StoreReadTransaction,
        replay: (TransitionRecord, SessionSnapshot) throws -> SessionSnapshot
    ) throws -> SessionSnapshot {
        let start = try latest(of: session, atOrBefore: version, in: transaction) ?? .empty(definition: "")
        return try rebuilt(session, at: version, from: start, records: records(of: session, in: transaction), replay: replay)
    }

    /// The error of a session whose index lacks `version`.
    private static func missing(_ version: UInt64, of session: SessionID) -> EngineError {
        EngineError.corruptedEntry(what: "the session index of '\(session)'", reason: "version \(version) is missing")
    }
}
