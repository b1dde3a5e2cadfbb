import Foundation
import RewindMachine
import RewindStore

/// Appending a step's records to the store, through the engine's group commit
/// (`CommitQueue`).
extension Session {
    /// Appends `transitions` (and `writes`) after the session's version in `before`, through the
    /// engine's group commit; returns once they are committed.
    func append(
        _ transitions: [TransitionDraft], after before: SessionSnapshot, writes: [AppendRequest.AuxiliaryWrite]
    ) async throws {
        let expected: ExpectedVersion = before.version == 0 ? .noStream : .exact(before.version)
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
