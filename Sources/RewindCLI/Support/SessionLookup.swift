import Rewind

/// Resolving a session named on the command line.
extension Engine {
    /// The session's info, or ``CLIError/unknownSession(_:)``.
    func existingSession(_ text: String) throws -> SessionInfo {
        guard let id = try? SessionID(text), let info = try store.sessionInfo(for: id) else {
            throw CLIError.unknownSession(text)
        }
        return info
    }
}

/// A version named on the command line: a number from 1 to the session's head.
func parseVersion(_ text: String, head: UInt64) throws -> UInt64 {
    guard let version = UInt64(text), version >= 1, version <= head else {
        throw CLIError.badVersion(text, head: head)
    }
    return version
}
