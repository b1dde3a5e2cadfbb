import RewindMachine
import RewindStore

/// The state of a session at version N, rebuilt from its records: the one implementation behind
/// resuming a session (`Engine.loadSnapshot`, `Engine.recordedState`), ``ReplayCursor``
/// (`ReplayMachines.rebuild`), verification (``LogReplay/verify(_:against:)``), migration by
/// replay (`StepRecording.migrated`), `rewind check`'s snapshot check and the snapshots of an
/// imported archive, which differ only in where they start and how they re-run one record.
/// Records are read through ``TransitionLogReader``, so a server's log rebuilds the same states.
extension SessionSnapshot {
    /// Reads a session's records in version order from version `first` on, handing each to
    /// `visit` until the records end or `visit` returns `false`.
    typealias RecordReader = (_ first: UInt64, _ visit: (TransitionRecord) throws -> Bool) throws -> Void

    /// How many records one read of a session's records asks for.
    static let recordBatch = 256

    /// The records of `session` in `reader`, read in batches of at most ``recordBatch`` (none
    /// past version `last`, when given).
    static func records(
        of session: SessionID, through last: UInt64? = nil, in reader: any TransitionLogReader
    ) -> RecordReader {
        { first, visit in
            var next = first
            while last.map({ next <= $0 }) ?? true {
                let limit = last.map { Int(clamping: min(UInt64(recordBatch), $0 - next + 1)) } ?? recordBatch
                let batch = try reader.records(of: session, fromVersion: next, limit: limit)
                for record in batch {
                    guard try visit(record) else { return }
                }
                // Fewer than asked for: the session's head (a gap is the caller's to report).
                guard batch.count == limit, let end = batch.last?.version, end >= next else { return }
                next = end + 1
            }
        }
    }

    /// The state of `session` at `version` (through its last record when `nil`): `start`, then
    /// each record from `firstVersion` (by default the one after `start`'s version) up to
    /// `version` re-run by `replay`, which gets the record and the state at the version before it
    /// and moves that state, in place, to the state after it (`StepRecording.replay(_:request:advancing:)`,
    /// checked to reach the recorded target, for most callers).
    ///
    /// - Throws: ``EngineError/corruptedEntry(what:reason:)`` when a version between is missing;
    ///   what `records` and `replay` throw.
    static func rebuilt(
        _ session: SessionID, at version: UInt64?, from start: SessionSnapshot, firstVersion: UInt64? = nil,
        records: RecordReader, replay: (TransitionRecord, inout SessionSnapshot) throws -> Void
    ) throws -> SessionSnapshot {
        var snapshot = start
        var expected = firstVersion ?? start.version + 1
        if let version, expected > version { return snapshot }
        // Two non-escaping closures, one called from inside the other (neither keeps it).
        try withoutActuallyEscaping(replay) { replay in
            try records(expected) { record in
                if let version, record.version > version { return false }
                guard record.version == expected else { throw missing(expected, of: session) }
                try replay(record, &snapshot)
                expected += 1
                return version.map { record.version < $0 } ?? true
            }
        }
        if let version, expected <= version { throw missing(expected, of: session) }
        return snapshot
    }

    /// The state of `session` at `version`: the latest snapshot `reader` keeps at or before
    /// `version` (the empty state when it keeps none), then the records after it re-run by
    /// `replay` (see ``rebuilt(_:at:from:firstVersion:records:replay:)``).
    static func rebuilt(
        _ session: SessionID, at version: UInt64, in reader: any TransitionLogReader,
        replay: (TransitionRecord, inout SessionSnapshot) throws -> Void
    ) throws -> SessionSnapshot {
        let start = try base(of: session, at: version, in: reader)
        return try rebuilt(
            session, at: version, from: start, records: records(of: session, through: version, in: reader),
            replay: replay)
    }

    /// Where a rebuild of `session` at `version` starts: the latest snapshot `reader` keeps at or
    /// before `version`, else the empty state before version 1. A trimmed session's history
    /// begins at its base, whose snapshot must be there.
    ///
    /// - Throws: ``ReplayError/historyTrimmed(session:requested:firstVersion:)`` below the base,
    ///   ``EngineError/corruptedEntry(what:reason:cause:)`` when the base snapshot is missing or
    ///   cannot be read.
    package static func base(of session: SessionID, at version: UInt64, in reader: any TransitionLogReader) throws
        -> SessionSnapshot
    {
        let latest = try reader.latestSnapshot(of: session, atOrBefore: version)
        guard let base = try reader.sessionInfo(for: session)?.baseVersion else {
            return latest ?? .empty(definition: "")
        }
        guard version >= base else {
            throw ReplayError.historyTrimmed(session: session, requested: version, firstVersion: base)
        }
        guard let latest, latest.version >= base else {
            throw EngineError.corruptedEntry(
                what: "the base snapshot of '\(session.excerpt)' at version \(base)",
                reason: "it is missing or cannot be read, and the history before it was trimmed")
        }
        return latest
    }

    /// The error of a session whose index lacks `version`.
    private static func missing(_ version: UInt64, of session: SessionID) -> EngineError {
        EngineError.corruptedEntry(
            what: "the session index of '\(session.excerpt)'", reason: "version \(version) is missing")
    }
}
