import Foundation
import RewindMachine
import RewindStore

/// Appending a step's records to the store, through the engine's group commit
/// (`CommitQueue`).
extension Session {
    /// Appends `transitions` (and `writes`) after the session's version `version`, through the
    /// engine's group commit; returns once they are committed. Always inlined: an async call
    /// of its own is a frame from the task's allocator on every send.
    @inline(__always)
    func append(
        _ transitions: [TransitionDraft], afterVersion version: UInt64, writes: [AppendRequest.AuxiliaryWrite]
    ) async throws {
        let expected: ExpectedVersion = version == 0 ? .noStream : .exact(version)
        do {
            _ = try await engine.commits.submit(
                AppendRequest(
                    session: id, expectedVersion: expected, transitions: transitions, auxiliaryWrites: writes))
        } catch  where engine.isClosed {
            // The engine closed while the append waited: it failed on the closed store.
            throw EngineError.closed
        }
    }
}
