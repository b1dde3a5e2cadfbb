import Foundation
import Rewind

/// A fault injector for `engine.commits.injectFaults` that holds one commit until released: the
/// first commit whose sessions are exactly `sessions` (any commit when `nil`). Once released, that
/// commit goes on, or fails with `error` before anything is written; every other commit goes
/// through untouched.
///
/// Tests use it to set up an interleaving explicitly (a commit in flight while another sender
/// arrives) instead of relying on timing.
///
/// `@unchecked Sendable`: `condition` (a condition variable, which `Synchronization.Mutex` has no
/// equivalent of) guards `holding`, `released` and `done`.
public final class HeldCommit: @unchecked Sendable {
    private let condition = NSCondition()
    private let sessions: [String]?
    private let error: (any Error)?
    private var holding = false
    private var released = false
    private var done = false

    /// Holds the first commit of exactly `sessions` (of any sessions when `nil`); once released it
    /// fails with `error`, or goes on when `error` is `nil`.
    public init(sessions: [String]? = nil, failingWith error: (any Error)? = nil) {
        self.sessions = sessions
        self.error = error
    }

    /// Whether the held commit has started (and waits for ``release()``).
    public var started: Bool { condition.withLock { holding } }

    /// Lets the held commit go on (or fail).
    public func release() {
        condition.withLock {
            released = true
            condition.broadcast()
        }
    }

    /// The injector: called with the sessions of each commit before it writes anything.
    public func callAsFunction(_ committing: [SessionID]) -> (any Error)? {
        condition.withLock { () -> (any Error)? in
            if done || holding { return nil }
            if let sessions, committing.map(\.rawValue) != sessions { return nil }
            holding = true
            while !released { condition.wait() }
            done = true
            return error
        }
    }
}
