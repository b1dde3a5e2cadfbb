/// Where an ``Uploader`` stands: what the server acknowledged of the device's log, what it sent,
/// and what it is doing.
public struct UploadProgress: Sendable, Equatable {
    /// What the uploader is doing.
    public enum Status: Sendable, Equatable {
        /// Not started, or stopped.
        case stopped
        /// Caught up (as far as it knows), waiting for the next commit.
        case idle
        /// Sending batches.
        case uploading
        /// Waiting `delay` before retry `attempt` (1 after the first failure) of a retryable
        /// failure (``lastError``).
        case retrying(attempt: Int, delay: Duration)
        /// Given up on a failure that retrying cannot fix (a refused key, a diverged store): the
        /// background upload has ended.
        case failed(UploadError)
    }

    /// What the uploader is doing.
    public var status: Status
    /// The server holds the device's records through this global sequence (0: none known).
    public var acknowledgedThrough: UInt64
    /// The device log's head as last read.
    public var headSequence: UInt64
    /// Records the server stored from this uploader.
    public var recordsUploaded: Int
    /// Records this uploader sent that the server already held (a batch sent again after a lost
    /// answer: acknowledged, not stored twice).
    public var recordsAlreadyHeld: Int
    /// Batches the server accepted from this uploader.
    public var batchesUploaded: Int
    /// Failed attempts so far (each retry that failed counts).
    public var failures: Int
    /// The last failure, kept after later successes.
    public var lastError: UploadError?

    /// Records committed on the device that the server is not known to hold.
    public var pendingRecords: UInt64 { headSequence > acknowledgedThrough ? headSequence - acknowledgedThrough : 0 }
    /// Whether the server holds everything the device had committed when the log was last read.
    public var isCaughtUp: Bool { acknowledgedThrough >= headSequence }

    /// A progress from its parts.
    public init(
        status: Status = .stopped, acknowledgedThrough: UInt64 = 0, headSequence: UInt64 = 0, recordsUploaded: Int = 0,
        recordsAlreadyHeld: Int = 0, batchesUploaded: Int = 0, failures: Int = 0, lastError: UploadError? = nil
    ) {
        self.status = status
        self.acknowledgedThrough = acknowledgedThrough
        self.headSequence = headSequence
        self.recordsUploaded = recordsUploaded
        self.recordsAlreadyHeld = recordsAlreadyHeld
        self.batchesUploaded = batchesUploaded
        self.failures = failures
        self.lastError = lastError
    }
}
