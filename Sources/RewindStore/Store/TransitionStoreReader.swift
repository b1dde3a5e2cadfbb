import Foundation

/// Read access to a ``TransitionStore``: what an app, a tool or an uploader may do with an
/// engine's store (`Engine.store`). It reads the log, the sessions and the auxiliary databases in
/// consistent read transactions; it cannot write, so every change to the log goes through
/// sessions, where the commit queue, the snapshots, the inline projections and the subscribers
/// follow it.
///
/// ```swift
/// let head = try engine.store.headSequence()
/// let history = try engine.store.records(of: session.id)
/// let sessions = try engine.store.read { try $0.sessions() }
/// ```
public struct TransitionStoreReader: Sendable {
    /// The store read (the library's own modules and tests write to it; apps never do).
    package let store: TransitionStore

    /// Reads `store`.
    package init(_ store: TransitionStore) {
        self.store = store
    }

    /// The canonical path of the store's directory.
    public var path: String { store.path }
    /// The store's id, written at creation.
    public var storeID: UUID { store.storeID }
    /// The store format of the directory.
    public var formatVersion: UInt32 { store.formatVersion }
    /// The configuration the store was opened with.
    public var configuration: StoreConfiguration { store.configuration }
    /// The coder for the app's payloads and state data (``StoreConfiguration/coder``).
    public var coder: any PayloadCoder { store.coder }

    /// Runs `body` in a read transaction: one consistent snapshot of the whole store.
    public func read<R>(_ body: (StoreReadTransaction) throws -> R) throws -> R {
        try store.read(body)
    }

    /// The record at global sequence `sequence`, or `nil`.
    public func record(at sequence: UInt64) throws -> TransitionRecord? {
        try store.record(at: sequence)
    }

    /// The global sequence of the last record (0 when the log is empty).
    public func headSequence() throws -> UInt64 {
        try store.headSequence()
    }

    /// What the store knows about `session`, or `nil`.
    public func sessionInfo(for session: SessionID) throws -> SessionInfo? {
        try store.sessionInfo(for: session)
    }

    /// Every session with its head version and machine, ordered by id.
    public func sessions() throws -> [SessionInfo] {
        try store.sessions()
    }

    /// The records of `session` with versions in `versions`, in `direction`.
    public func records(
        of session: SessionID, versions: ClosedRange<UInt64> = 1...UInt64.max,
        direction: IterationDirection = .forward
    ) throws -> [TransitionRecord] {
        try store.records(of: session, versions: versions, direction: direction)
    }

    /// Up to `limit` records of the whole log from global sequence `start` on.
    public func records(from start: UInt64 = 1, limit: Int = .max) throws -> [TransitionRecord] {
        try store.records(from: start, limit: limit)
    }

    /// How this process's commits of the store flush now (``TransitionStore/syncOptions``).
    public var syncOptions: EnvironmentOptions {
        get throws { try store.syncOptions }
    }

    /// The LMDB environment's statistics (map size, used pages).
    public func statistics() throws -> EnvironmentStatistics {
        try store.statistics()
    }

    /// Checks the store's consistency (``TransitionStore/check(progress:)``), reading only.
    public func check(progress: (StoreCheckProgress) -> Void = { _ in }) throws -> StoreCheckReport {
        try store.check(progress: progress)
    }
}

extension TransitionStore {
    /// This store, for reading only.
    public var reader: TransitionStoreReader { TransitionStoreReader(self) }
}
