/// How an ``Uploader`` batches, waits and retries.
public struct UploaderConfiguration: Sendable, Equatable {
    /// The most records one batch holds (the server stores a batch in one transaction).
    public var maximumBatchRecords: Int
    /// The most bytes one batch's body holds (keep it under the server's body limit, 8 MiB by
    /// default); a single record larger than this still goes, alone.
    public var maximumBatchBytes: Int
    /// How long the background upload waits after a commit wakes it before reading the log, so
    /// that a burst of transitions goes up in one batch instead of one request per commit. Not
    /// waited when a full batch is already pending, nor by ``Uploader/uploadNow()``.
    public var coalescingDelay: Duration
    /// The retry schedule after failures (network errors, 5xx, 429).
    public var backoff: Backoff
    /// How long one request may take before it counts as a network failure.
    public var requestTimeout: Duration
    /// The name under which the store keeps this upload's checkpoint (the server's acknowledged
    /// position); `nil`: the server's URL. Two uploaders of one store to different servers need
    /// different names; the same server and app under two names would upload the same records
    /// twice (the server acknowledges the second copy without storing it).
    public var destination: String?

    /// A configuration from its parts; every parameter has a default fit for an app.
    public init(
        maximumBatchRecords: Int = 500, maximumBatchBytes: Int = 1 << 20, coalescingDelay: Duration = .seconds(2),
        backoff: Backoff = Backoff(), requestTimeout: Duration = .seconds(60), destination: String? = nil
    ) {
        self.maximumBatchRecords = Swift.max(maximumBatchRecords, 1)
        self.maximumBatchBytes = Swift.max(maximumBatchBytes, 1)
        self.coalescingDelay = coalescingDelay
        self.backoff = backoff
        self.requestTimeout = requestTimeout
        self.destination = destination
    }
}
