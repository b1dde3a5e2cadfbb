/// How long a store keeps sessions (``EngineConfiguration/retention``): whole sessions go, oldest
/// last record first, when they are older than ``maximumAge``, beyond ``maximumSessions`` or while
/// the store's live data is over ``maximumLiveBytes`` — never a session a fleet server has not
/// acknowledged when ``keepsUnacknowledgedUploads`` (the default); long-lived sessions keep their
/// last ``maximumVersionsPerSession`` versions (their history before is trimmed, the state there
/// becomes their base: they resume exactly). ``Engine/applyRetention(now:)``
/// enforces it in passes of at most ``sessionsPerPass`` sessions, each its own write transaction,
/// so sends go on between passes. It saves the device's storage only: the fleet server keeps
/// what it received of the sessions it drops (their erasure notice has kind
/// `ErasureNotice.Kind.retention`; an account deletion is ``Engine/erase(_:)`` or the server's
/// erasure request).
///
/// ```swift
/// var configuration = EngineConfiguration()
/// configuration.retention = RetentionPolicy(maximumAge: .seconds(90 * 24 * 3600), maximumSessions: 500)
/// ```
public struct RetentionPolicy: Sendable, Hashable {
    /// Sessions whose last record is older than this go. `nil`: no age limit.
    public var maximumAge: Duration?
    /// At most this many sessions stay (the ones with the newest last records). `nil`: no limit.
    public var maximumSessions: Int?
    /// Sessions go, oldest first, while the store's live data (the pages its databases use, not
    /// the free pages the data file keeps until it is compacted) is larger. `nil`: no limit.
    public var maximumLiveBytes: Int?
    /// Whether a session stays until every fleet server the store uploads to (every destination
    /// with an upload checkpoint, see `RewindSync`) has acknowledged all of its records. Default
    /// `true`: retention never drops what was not uploaded.
    public var keepsUnacknowledgedUploads: Bool
    /// Destinations (an uploader's checkpoint name: its server URL unless configured otherwise)
    /// that must have acknowledged a session before it may go, also before their first upload.
    public var requiredUploadDestinations: [String]
    /// The most sessions one pass erases (one write transaction). Default 100.
    public var sessionsPerPass: Int
    /// Long-lived sessions keep at most this many versions: the history of a session with more is
    /// trimmed (``Engine/trimHistory(of:before:)``) so that its state that many versions before
    /// its head becomes its base. Trimmed records a fleet server has not acknowledged stay, as
    /// with whole sessions; the fleet server keeps its copy (the notice has kind `retention`).
    /// `nil` (the default): histories are kept whole.
    public var maximumVersionsPerSession: Int?
    /// The most records one trim pass removes (one write transaction, one session). Default 10,000.
    public var recordsPerTrimPass: Int

    /// Keeps everything (the default).
    public static let keepEverything = RetentionPolicy()

    /// Creates a policy.
    public init(
        maximumAge: Duration? = nil, maximumSessions: Int? = nil, maximumLiveBytes: Int? = nil,
        keepsUnacknowledgedUploads: Bool = true, requiredUploadDestinations: [String] = [], sessionsPerPass: Int = 100,
        maximumVersionsPerSession: Int? = nil, recordsPerTrimPass: Int = 10_000
    ) {
        self.maximumAge = maximumAge
        self.maximumSessions = maximumSessions
        self.maximumLiveBytes = maximumLiveBytes
        self.keepsUnacknowledgedUploads = keepsUnacknowledgedUploads
        self.requiredUploadDestinations = requiredUploadDestinations
        self.sessionsPerPass = sessionsPerPass
        self.maximumVersionsPerSession = maximumVersionsPerSession
        self.recordsPerTrimPass = recordsPerTrimPass
    }

    /// Whether the policy limits anything.
    public var limitsAnything: Bool {
        maximumAge != nil || maximumSessions != nil || maximumLiveBytes != nil || maximumVersionsPerSession != nil
    }
}
