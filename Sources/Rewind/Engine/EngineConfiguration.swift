import RewindStore

/// When an appended transition is on disk: what a `send` that returned has survived.
///
/// | level | flushes per commit | process killed | OS crash, power loss |
/// | --- | --- | --- | --- |
/// | ``durable`` | 2 | nothing lost | nothing lost |
/// | ``lastCommitMayRollBack`` | 1 | nothing lost | the last commit may be undone; never corrupted |
/// | ``noSync`` | 0 | nothing lost | recent commits lost, **the store may be corrupted** |
///
/// A commit is one LMDB write transaction: a group commit holds the appends of every session
/// that sent meanwhile. "Nothing lost" means every transition whose `send` returned is in the
/// store after a restart. See RELIABILITY.md, "Durability levels", for how each level follows
/// from LMDB's design and what the kill -9 suite proves.
///
/// LMDB's flags are per process: the engines of one process on one directory share them, and
/// the strongest level any of them asks for applies to all (``Engine/effectiveDurability``).
/// Processes sharing a store each flush as they asked; on an OS crash or power loss the store
/// gets the guarantee of the weakest level that wrote to it since its last flush.
public enum Durability: Sendable, Hashable {
    /// Every commit is flushed to disk before `send` returns, twice (the data pages, then the
    /// meta page that makes them the store's state): an acknowledged transition survives a
    /// killed process, an OS crash and a power loss. The default.
    case durable
    /// Every commit flushes its data pages before `send` returns, but not the meta page that
    /// makes them the store's state (LMDB's `MDB_NOMETASYNC`): one flush per commit instead of
    /// two. A killed process loses nothing acknowledged. An OS crash or power loss may undo the
    /// **last commit** (the transitions of every session in it; the one before it is on disk),
    /// never more, and never corrupts the store: it reopens at the commit before, and the
    /// sessions resume there. The next commit (or ``Engine/flush()``, or the OS writing its
    /// caches out) makes it durable: call ``Engine/flush()`` where losing it would matter, when
    /// the app moves to the background, say.
    ///
    /// This is the closest LMDB comes to SQLite's WAL with `synchronous=NORMAL` (GRDB's
    /// default), which flushes on checkpoints rather than per commit; LMDB cannot give that
    /// guarantee without a flush per commit (see RELIABILITY.md).
    case lastCommitMayRollBack
    /// Commits are not flushed (LMDB's `MDB_NOSYNC`): for tests, imports and benchmarks. A
    /// killed process loses nothing acknowledged (its writes are in the OS's cache), but an OS
    /// crash or power loss may lose the recent commits **and may corrupt the store**, as LMDB's
    /// documentation warns (nothing makes the disk write the data before the meta page naming it).
    /// ``Engine/flush()`` makes everything so far durable.
    case noSync
}

extension Durability {
    /// The sync options of the store's environment for this level.
    var environmentOptions: EnvironmentOptions {
        switch self {
        case .durable: []
        case .lastCommitMayRollBack: .noMetaSync
        case .noSync: .noSync
        }
    }

    /// The level of the environment's sync `options` (``EnvironmentOptions/noSync`` wins, as in
    /// LMDB).
    init(_ options: EnvironmentOptions) {
        if options.contains(.noSync) {
            self = .noSync
        } else if options.contains(.noMetaSync) {
            self = .lastCommitMayRollBack
        } else {
            self = .durable
        }
    }

    /// Whether each commit flushes before it is acknowledged.
    var flushesEachCommit: Bool { self != .noSync }
}

/// How an ``Engine`` runs.
public struct EngineConfiguration: Sendable {
    /// When appended transitions are on disk. Default ``Durability/durable``. Another engine of
    /// this process on the same directory asking for a stronger level makes this one's commits
    /// that strong too (``Engine/effectiveDurability``).
    public var durability: Durability

    /// A snapshot of a session's full interpreter state is written every this many versions, in
    /// the same LMDB transaction as the append; resuming reads the latest snapshot and replays the
    /// records after it. Default 64; `0` disables snapshots (resume replays from version 1). With a
    /// ``redaction`` policy, a snapshot is also written with each redacted record that a replay
    /// from its recorded values would not reproduce (whatever the interval).
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

    /// Whether the data file's pages are checked before the store opens
    /// (``StoreConfiguration/checksPages``): a damaged page is a `DamagedPageError` instead of a
    /// crash. Default `false`.
    public var checksPages: Bool {
        get { store.checksPages }
        set { store.checksPages = newValue }
    }

    /// The most free space the store's data file keeps beyond what is in use, in bytes
    /// (``StoreConfiguration/environment``'s `mapHeadroom`): when a write fills the map it grows by
    /// at most this much (doubling while smaller), and ``Engine/compact(progress:)`` leaves the
    /// file at the pages in use plus this much. On Linux the file is as long as the map and
    /// reserved on disk (so a full disk is a write error, never a crash). Default 4 MiB; a new
    /// store starts at a 1 MiB map (`mapSize`).
    public var mapHeadroom: Int {
        get { store.environment.mapHeadroom }
        set { store.environment.mapHeadroom = max(newValue, 0) }
    }

    /// Projections registered (in ``ProjectionMode/inline`` mode) and caught up when the engine
    /// opens, before it serves anything; a projection failing on a record does not stop the
    /// engine from opening (see ``Engine/projectionStatus(named:)``). Default none.
    public var projections: [any Projection] = []

    /// How long the store keeps sessions, enforced by ``Engine/applyRetention(now:)``. Default
    /// ``RetentionPolicy/keepEverything``.
    public var retention: RetentionPolicy = .keepEverything

    /// The values never written, per machine (by the name it is registered under): paths of event
    /// payloads, state data and context whose values are dropped, marked or replaced by a keyed
    /// hash before the append, in records and snapshots alike (so in uploads, archives, exports and
    /// pages too), while the live session keeps them. Parsed when the engine opens: a path that
    /// does not parse is a ``RedactionPolicyError``. Default none: values are written as they are,
    /// and a send does no redaction work.
    public var redaction = RedactionPolicy()

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
