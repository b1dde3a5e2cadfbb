import RewindMachine
import RewindStore

/// A position in a recorded session that moves through its versions: time-travel debugging.
///
/// ```swift
/// var cursor = try engine.replayCursor(for: "user-42")
/// try cursor.seek(to: 120)                  // nearest snapshot at or before 120, then its records
/// print(cursor.point.activeStates, cursor.point.navigation.screens)
/// try cursor.stepBack()
/// while let point = try cursor.stepForward() { print(point.version, point.event ?? "") }
/// ```
///
/// Seeking reads the nearest stored ``SessionSnapshot`` at or before the version (when the log
/// keeps snapshots, as a device's store does) and re-runs the records after it (at most the
/// engine's snapshot interval minus one), so any point of a long session is reached quickly;
/// stepping forward decodes one record and takes one machine step; stepping back seeks again.
/// Each re-run record is checked to reach its recorded target.
///
/// A cursor is a value: copy it to keep a bookmark. It reads the log (a new
/// ``TransitionLogReader`` of its ``TransitionLog``) on each move and never writes; records
/// appended after it was made are seen by ``last()`` and `seek(to:)`. Made by
/// ``LogReplay/cursor(for:)`` or ``Engine/replayCursor(for:bindings:)``.
public struct ReplayCursor: Sendable {
    /// The session replayed.
    public let session: SessionID
    /// The name of the session's machine.
    public let machineName: String
    /// Where the cursor stands.
    public private(set) var point: ReplayPoint

    private let log: any TransitionLog
    private var machines: ReplayMachines
    /// The session's state at ``point``.
    private var snapshot: SessionSnapshot

    init(log: any TransitionLog, session: SessionID, machines: ReplayMachines) {
        self.session = session
        self.machineName = machines.machineName
        self.log = log
        self.machines = machines
        self.snapshot = .empty(definition: "")
        self.point = ReplayPoint(session: session, snapshot: snapshot, step: nil)
    }

    /// The session's head version now.
    public func headVersion() throws -> UInt64 {
        try log.readLog { try $0.sessionInfo(for: session)?.headVersion } ?? 0
    }

    /// Moves to `version` (0 = before the first record).
    ///
    /// - Throws: ``ReplayError/versionOutOfRange(session:requested:head:)`` past the head; the
    ///   replay errors of ``ReplayError`` and ``EngineError`` when the records cannot be re-run.
    @discardableResult
    public mutating func seek(to version: UInt64) throws -> ReplayPoint {
        let session = self.session
        let (snapshot, step) = try log.readLog { reader in
            let head = try reader.sessionInfo(for: session)?.headVersion ?? 0
            guard version <= head else {
                throw ReplayError.versionOutOfRange(session: session, requested: version, head: head)
            }
            return try machines.rebuild(session, at: version, in: reader)
        }
        return move(to: snapshot, step: step)
    }

    /// Moves to the last version written at or before `time` (version 0 when the session had not
    /// started then). Versions are found by binary search over the records' timestamps, which the
    /// engine writes in non-decreasing order unless the wall clock went back.
    @discardableResult
    public mutating func seek(to time: Timestamp) throws -> ReplayPoint {
        let session = self.session
        let version = try log.readLog { reader -> UInt64 in
            var low: UInt64 = 0  // known at or before `time` (0: before the session)
            var high = (try reader.sessionInfo(for: session)?.headVersion ?? 0) + 1  // known after
            while high - low > 1 {
                let middle = low + (high - low) / 2
                guard let record = try reader.records(of: session, fromVersion: middle, limit: 1).first,
                    record.version == middle
                else {
                    throw EngineError.corruptedEntry(
                        what: "the session index of '\(session.excerpt)'", reason: "version \(middle) is missing")
                }
                if record.timestamp <= time { low = middle } else { high = middle }
            }
            return low
        }
        return try seek(to: version)
    }

    /// Moves one version forward: one record decoded, one machine step. Returns `nil` (and stays)
    /// at the head.
    @discardableResult
    public mutating func stepForward() throws -> ReplayPoint? {
        let next = point.version + 1
        let session = self.session
        let current = snapshot
        let moved = try log.readLog { reader -> (RecordedStep, SessionSnapshot)? in
            guard let record = try reader.records(of: session, fromVersion: next, limit: 1).first,
                record.version == next
            else { return nil }
            return try machines.replay(record, on: current, in: reader)
        }
        guard let (step, after) = moved else { return nil }
        return move(to: after, step: step)
    }

    /// Moves one version back (by seeking). Returns `nil` (and stays) at version 0.
    @discardableResult
    public mutating func stepBack() throws -> ReplayPoint? {
        guard point.version > 0 else { return nil }
        return try seek(to: point.version - 1)
    }

    /// Moves to the first record (version 1), or stays at 0 for a session without records.
    @discardableResult
    public mutating func first() throws -> ReplayPoint {
        try seek(to: min(1, try headVersion()))
    }

    /// Moves to the session's head.
    @discardableResult
    public mutating func last() throws -> ReplayPoint {
        try seek(to: try headVersion())
    }

    private mutating func move(to snapshot: SessionSnapshot, step: RecordedStep?) -> ReplayPoint {
        let point = ReplayPoint(session: session, snapshot: snapshot, step: step)
        self.snapshot = snapshot
        self.point = point
        return point
    }
}

extension Engine {
    /// A cursor over the recorded session `session`, standing at version 0 (see
    /// ``LogReplay/cursor(for:)``).
    ///
    /// Records are re-run with the registered machine when they were written under its
    /// definition, else with the definition stored when they were written, compiled with
    /// `bindings` (the named guards and actions it uses, which only the app's code has).
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``.
    public func replayCursor(for session: SessionID, bindings: Bindings = Bindings()) throws -> ReplayCursor {
        try logReplay(bindings: bindings).cursor(for: session)
    }

    /// A cursor over the recorded session with the plain string id `session`.
    public func replayCursor(for session: String, bindings: Bindings = Bindings()) throws -> ReplayCursor {
        try replayCursor(for: try SessionID(session), bindings: bindings)
    }
}
