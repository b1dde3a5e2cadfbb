import RewindMachine
import RewindStore

/// A source of consistent readers of a transition log: a device's LMDB store
/// (``TransitionStore`` conforms, one read transaction per call), or a fleet server's log of the
/// records a device uploaded. ``LogReplay`` reads a log only through this protocol, so history,
/// the state at a version, diffs, verification and archive export answer the same wherever the
/// log is kept.
public protocol TransitionLog: Sendable {
    /// Runs `body` with a reader that sees one consistent state of the log (see
    /// ``TransitionLogReader``) and returns what it returns. The reader is valid only during
    /// the call.
    ///
    /// - Throws: what `body` throws; the log's errors when no reader can be had.
    func readLog<R>(_ body: (any TransitionLogReader) throws -> R) throws -> R
}

/// A device's store: each reader is one LMDB read transaction.
extension TransitionStore: TransitionLog {
    /// Runs `body` in a read transaction of the store.
    public func readLog<R>(_ body: (any TransitionLogReader) throws -> R) throws -> R {
        try read { transaction in try body(transaction) }
    }
}

/// An engine's store, read only: each reader is one LMDB read transaction.
extension TransitionStoreReader: TransitionLog {
    /// Runs `body` in a read transaction of the store.
    public func readLog<R>(_ body: (any TransitionLogReader) throws -> R) throws -> R {
        try store.readLog(body)
    }
}
