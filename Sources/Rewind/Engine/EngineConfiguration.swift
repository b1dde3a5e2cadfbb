import RewindStore

/// When an appended transition is on disk.
public enum Durability: Sendable, Hashable {
    /// Every commit is synced before `send` returns (the default): an acknowledged transition
    /// survives a crash or power loss.
    case durable
    /// Commits are not synced (LMDB's `MDB_NOSYNC`): fast, for tests, imports and benchmarks. A
    /// crash may lose the most recent commits (never corrupting older ones); call
    /// ``Engine/flush()`` to make everything so far durable.
    case noSync
}

/// How an ``Engine`` runs.
public struct EngineConfiguration: Sendable {
    /// When appended transitions are on disk. Default ``Durability/durable``.
    public var durability: Durability

    /// A snapshot of a session's full interpreter state is written every this many versions, in
    /// the same LMDB transaction as the append; resuming reads the latest snapshot and replays the
    /// records after it. Default 64; `0` disables snapshots (resume replays from version 1).
    public var snapshotInterval: UInt64

    /// How group commits gather their appends. Default ``CommitGathering/automatic``: commits that
    /// are synced wait briefly for the senders they acknowledged, so concurrent senders share one
    /// batch.
    public var commitGathering: CommitGathering = .automatic

    /// How often a subscription (``Engine/records(from:)``) that is caught up checks the store for
    /// records other writers appended (another process, another engine on the same directory):
    /// their commits reach it within this interval. `nil`: only this engine's commits wake
    /// subscriptions (others' are seen at its next commit). One read of the log's head per
    /// interval for all of the engine's subscriptions, none while none waits. Default 100 ms.
    public var externalCommitPollInterval: Duration? = .milliseconds(100)

    /// The time of each step: its record's timestamp, and the machine's clock for delayed sends
    /// (when a `<send delay>` is due, ``Session/nextDueSend``, ``Session/deliverDueSends()``).
    /// Default: the system's wall clock. Tests (and apps replaying with their own time) may pass
    /// another; it should not run backwards.
    public var clock: @Sendable () -> Timestamp = { Timestamp.now() }

    /// The store's configuration (map size and its bound, readers, the payload coder). The engine
    /// sets the sync options from ``durability``.
    public var store: StoreConfiguration

    /// Whether the engine opens its store read-only (``StoreConfiguration/readOnly``): for tools
    /// that inspect a store, also on read-only media. Nothing is created or written: registering
    /// a machine does not store its definition, the projections are not caught up (their states
    /// and checkpoints are read as stored), and sends, imports and other writes throw. Default
    /// `false`.
    public var readOnly: Bool {
        get { store.readOnly }
        set { store.readOnly = newValue }
    }

    /// Projections registered (in ``ProjectionMode/inline`` mode) and caught up when the engine
    /// opens, before it serves anything; a projection failing on a record does not stop the
    /// engine from opening (see ``Engine/projectionStatus(named:)``). Default none.
    public var projections: [any Projection] = []

    /// Creates a configuration.
    public init(
        durability: Durability = .durable,
        snapshotInterval: UInt64 = 64,
        store: StoreConfiguration = StoreConfiguration()
    ) {
        self.durability = durability
        self.snapshotInterval = snapshotInterval
        self.store = store
    }
}
