import Rewind

/// Resolving a session named on the command line.
extension Engine {
    /// The session's info, or ``CLIError/unknownSession(_:)`` (``EngineError/sessionErased(_:_:)``
    /// when the store erased it).
    func existingSession(_ text: String) throws -> SessionInfo {
        guard let id = try? SessionID(text) else { throw CLIError.unknownSession(text) }
        return try store.read { transaction in
            if let info = try transaction.sessionInfo(for: id) { return info }
            if let erasure = try transaction.erasure(of: id) { throw EngineError.sessionErased(id, erasure) }
            throw CLIError.unknownSession(text)
        }
    }
}

/// A version named on the command line: a number from 1 to the session's head, or from 0 (before
/// the session's first record) where the answer is a state — `state` and `diff`, as the fleet
/// server's `state?version=0` and `diff?from=0`. Fork and replay start at a record: from 1.
func parseVersion(_ text: String, head: UInt64, allowingZero: Bool = false) throws -> UInt64 {
    let first: UInt64 = allowingZero ? 0 : 1
    guard let version = UInt64(text), version >= first, version <= head else {
        throw CLIError.badVersion(text, head: head, first: first)
    }
    return version
}
