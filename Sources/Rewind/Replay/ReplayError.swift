import RewindMachine
import RewindStore

/// What can go wrong when replaying, forking, verifying or playing a recorded session, beyond the
/// engine's own errors (``EngineError/unknownSession(_:)``, ``EngineError/replayDivergence(session:version:event:recorded:computed:)``,
/// ``EngineError/replayFailed(session:version:event:cause:)``) and the store's.
public enum ReplayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A version past the session's head (or a fork point of 0) was asked for.
    case versionOutOfRange(session: SessionID, requested: UInt64, head: UInt64)
    /// Records were written under a definition of `machine` that is neither registered with the
    /// engine nor stored in its `definitions` database, so nothing can re-run them.
    case missingDefinition(machine: String, version: String)
    /// The stored definition `version` of `machine` names guards or actions that only the app's
    /// code provides: pass them as `bindings`, or register that definition with the engine.
    case definitionNeedsBindings(machine: String, version: String, guards: [String], actions: [String])
    /// The stored definition `version` of `machine` does not compile (other than for missing
    /// bindings); `cause` is the machine's `MachineError`.
    case invalidStoredDefinition(machine: String, version: String, cause: ErrorCause)
    /// A log read asynchronously (``SessionLog/load(_:from:)``) answered records of `session` that
    /// are not its versions 1 to its head in order: `reason` says which.
    case incompleteSession(SessionID, reason: String)
    /// A version below the session's base was asked for: its history was trimmed
    /// (``Engine/trimHistory(of:before:)``) and begins at `firstVersion`, whose stored snapshot
    /// is the session's base.
    case historyTrimmed(session: SessionID, requested: UInt64, firstVersion: UInt64)

    /// A one-line explanation naming what failed and on what.
    public var description: String {
        switch self {
        case .versionOutOfRange(let session, let requested, let head):
            return "session '\(session.excerpt)' has no version \(requested): its versions run from 1 to \(head)"
        case .missingDefinition(let machine, let version):
            return "the definition \(version.prefix(12)) of machine '\(machine)' is neither registered nor stored; "
                + "register it to replay the records written under it"
        case .definitionNeedsBindings(let machine, let version, let guards, let actions):
            let names = guards.map { "guard '\($0)'" } + actions.map { "action '\($0)'" }
            return "the stored definition \(version.prefix(12)) of machine '\(machine)' needs the app's "
                + names.joined(separator: ", ") + "; pass them as bindings or register the machine"
        case .invalidStoredDefinition(let machine, let version, let reason):
            return "the stored definition \(version.prefix(12)) of machine '\(machine)' does not compile: \(reason)"
        case .incompleteSession(let session, let reason):
            return "the log's records of session '\(session)' are incomplete: \(reason)"
        case .historyTrimmed(let session, let requested, let firstVersion):
            return "session '\(session.excerpt)' has no version \(requested) any more: its history begins at version "
                + "\(Self.grouped(firstVersion)) (older history was trimmed)"
        }
    }

    /// `value` with its digits in groups of three: "1,200".
    static func grouped(_ value: UInt64) -> String {
        var digits = Array(String(value))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return String(digits)
    }
}
