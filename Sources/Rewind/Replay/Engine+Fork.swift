import RewindMachine
import RewindStore

extension Engine {
    /// Starts the new session `newSession` from version `version` of `session`: a branch from
    /// the past.
    ///
    /// The fork is self-contained: the original's records 1…`version` are copied into it (same
    /// versions, times, events and payloads; the first copy's `TransitionRecord/origin` names
    /// `session` and `version`, so `SessionInfo/origin` does too), and so are its snapshots up to
    /// `version`. A fork of a trimmed session (``trimHistory(of:before:)``) at or after its base
    /// begins at the same base: the records base…`version` and the base snapshot are copied, and
    /// the fork's history says where it begins, as the original's does. Nothing is shared, so later writes to either session cannot affect the other,
    /// and the original is untouched. Everything is written in one group commit, so the fork
    /// appears whole or not at all. Open it with `session(_:policy:)` to continue it.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, ``EngineError/sessionExists(_:)``,
    ///   ``ReplayError/versionOutOfRange(session:requested:head:)`` (also for version 0),
    ///   ``ReplayError/historyTrimmed(session:requested:firstVersion:)`` for a version below
    ///   `session`'s base, ``EngineError/corruptedEntry(what:reason:cause:)`` when its base
    ///   snapshot or a version after it is missing, the store's errors. Nothing is written when it throws.
    @discardableResult
    public func fork(_ session: SessionID, at version: UInt64, as newSession: SessionID) async throws -> SessionInfo {
        let (transitions, snapshots, base) = try store.read { transaction in
            let info = try transaction.requireSessionInfo(for: session)
            guard version >= 1, version <= info.headVersion else {
                throw ReplayError.versionOutOfRange(session: session, requested: version, head: info.headVersion)
            }
            // A trimmed session's history (and so its fork's) begins at its base.
            let first = info.firstVersion
            guard version >= first else {
                throw ReplayError.historyTrimmed(session: session, requested: version, firstVersion: first)
            }
            if try transaction.sessionInfo(for: newSession) != nil { throw EngineError.sessionExists(newSession) }
            var transitions: [TransitionDraft] = []
            transitions.reserveCapacity(Int(clamping: version - first + 1))
            try transaction.forEachRecord(of: session, from: first) { record in
                guard record.version <= version else { return .stop }
                guard record.version == first + UInt64(transitions.count) else {
                    throw EngineError.corruptedEntry(
                        what: "the session index of '\(session.excerpt)'",
                        reason: "version \(first + UInt64(transitions.count)) is missing")
                }
                var transition = record.transition
                transition.origin = transitions.isEmpty ? RecordOrigin(session: session, version: version) : nil
                transitions.append(transition)
                return .next
            }
            var snapshots: [AppendRequest.AuxiliaryWrite] = []
            let prefix = StoreKey.compoundPrefix(session.rawValue)
            try transaction.forEach(in: .snapshots, from: StoreKey.compound(session.rawValue, 0)) { key, value in
                guard key.count == prefix.count + 8, key.prefix(prefix.count).elementsEqual(prefix),
                    let split = StoreKey.splitCompound(key), split.number <= version
                else { return .stop }
                snapshots.append(
                    AppendRequest.AuxiliaryWrite(
                        database: .snapshots, key: SessionSnapshot.key(session: newSession, version: split.number),
                        value: Array(value)))
                return .next
            }
            if let base = info.baseVersion,
                snapshots.first?.key != SessionSnapshot.key(session: newSession, version: base)
            {
                throw EngineError.corruptedEntry(
                    what: "the base snapshot of '\(session.excerpt)' at version \(base)",
                    reason: "it is missing, and the history before it was trimmed")
            }
            return (transitions, snapshots, info.baseVersion)
        }
        let count = version - (base ?? 1) + 1
        guard transitions.count == Int(clamping: count) else {
            throw EngineError.corruptedEntry(
                what: "the session index of '\(session.excerpt)'",
                reason: "it holds \(transitions.count) of \(count) versions")
        }
        do {
            _ = try await commits.submit(
                AppendRequest(
                    session: newSession, expectedVersion: .noStream, transitions: transitions,
                    auxiliaryWrites: snapshots,
                    baseVersion: base))
        } catch StoreError.versionConflict {
            throw EngineError.sessionExists(newSession)
        }
        guard let info = try store.sessionInfo(for: newSession) else { throw EngineError.unknownSession(newSession) }
        return info
    }

    /// Forks with plain string ids (see the `SessionID` variant).
    @discardableResult
    public func fork(_ session: String, at version: UInt64, as newSession: String) async throws -> SessionInfo {
        try await fork(try SessionID(session), at: version, as: try SessionID(newSession))
    }
}
