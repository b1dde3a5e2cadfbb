import Foundation
import Rewind
import RewindStore

/// Uploads a device store's log to a Rewind fleet server (`rewind-server`), in the background,
/// in batches, resuming where the server's acknowledgement left off.
///
/// ```swift
/// let uploader = Uploader(engine: engine, server: URL(string: "https://rewind.example.com")!,
///                         key: ingestionKey)
/// await uploader.start()                  // uploads what is pending, then each new commit
/// for await progress in uploader.progressUpdates { … }   // or read uploader.progress
/// ```
///
/// What it sends: the records committed after the server's last acknowledgement, in their stored
/// encoding (checksums included) as RWB1 batches (``RecordBatch``), with the machine definitions
/// they name the first time the server needs them, the next batch sent before the answer to the
/// one before it comes (two in flight). After each accepted batch it keeps the
/// server's acknowledged position in the store (a `meta` entry per destination), so an app that
/// restarts resumes from there; when it starts it also asks the server's position and follows
/// it (a server that holds less — a restored database — gets the rest again; a 409 names where
/// to continue).
///
/// It never delays a `send`: it reads the log in read transactions of its own (LMDB readers
/// never block the writer) on a queue of its own, off the cooperative pool, and waits for the
/// engine's commits rather than polling. The only write is the checkpoint, one small write
/// transaction per accepted batch.
///
/// Failures: network errors, timeouts, 5xx, 408 and 429 are retried after an exponential
/// ``Backoff`` with jitter; a refused key (401, 403), a refused batch (400), a record the server
/// cannot take (413) or a server copy that differs from the log stop the background upload with
/// ``UploadProgress/Status/failed(_:)`` and a typed ``UploadError``.
public actor Uploader {
    /// The engine whose store is uploaded.
    public nonisolated let engine: Engine
    /// The server's base URL.
    public nonisolated let server: URL
    /// How it batches, waits and retries.
    public nonisolated let configuration: UploaderConfiguration
    /// The name of the store's checkpoint for this upload (the configuration's, or the server URL).
    public nonisolated let destination: String

    private let client: UploadClient
    private let clock: any Clock<Duration>
    private let broadcaster: ProgressBroadcaster
    /// Store reads and the checkpoint's writes run here: never on the cooperative pool.
    private let storeQueue = BlockingQueue(label: "rewind.sync.store")
    /// The server's next expected sequence, as last acknowledged; `nil` until asked.
    private var serverNext: UInt64?
    /// Definitions the server has acknowledged (sent once, then left out).
    private var knownDefinitions: Set<DefinitionName> = []
    /// The batch size in records: the configuration's, halved after each 413.
    private var recordLimit: Int
    /// The background upload while it runs.
    private var loop: Task<Void, Never>?
    /// Whether the background upload runs (set by ``start()``, cleared when it ends).
    private var loopRunning = false
    /// Serializes passes, first come first served: the background upload's and ``uploadNow()``'s.
    private let passGate = AsyncGate()
    /// Told the first sequence of each moot batch whose answer is about to be awaited (tests
    /// observe the wait through it: a server can tell a request still awaited from a cancelled
    /// one only by its answer).
    private var willAwaitMootBatch: (@Sendable (UInt64) -> Void)?

    /// An uploader of `engine`'s store to `server` with ingestion key `key`; nothing happens until
    /// ``start()`` or ``uploadNow()``.
    ///
    /// - Parameters:
    ///   - clock: the clock the retry and coalescing delays are waited on (tests pass a manual
    ///     one).
    public init(
        engine: Engine, server: URL, key: String, configuration: UploaderConfiguration = UploaderConfiguration(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.engine = engine
        self.server = server
        self.configuration = configuration
        let destination = configuration.destination ?? server.absoluteString
        self.destination = destination
        self.clock = clock
        self.recordLimit = configuration.maximumBatchRecords
        client = UploadClient(
            server: server, key: key, storeID: engine.store.storeID, timeout: configuration.requestTimeout)
        let checkpoint = (try? BatchReader.checkpoint(in: engine.store, for: destination)) ?? nil
        let head = (try? engine.store.headSequence()) ?? 0
        broadcaster = ProgressBroadcaster(
            UploadProgress(
                acknowledgedThrough: checkpoint.map { $0 - 1 } ?? 0, headSequence: head))
    }

    deinit {
        loop?.cancel()
        broadcaster.finish()
    }

    // MARK: Observing

    /// The current progress (readable from any thread or actor, without waiting).
    public nonisolated var progress: UploadProgress { broadcaster.progress }

    /// The progress now, then each change (a reader that falls behind gets the newest).
    public nonisolated var progressUpdates: AsyncStream<UploadProgress> { broadcaster.stream() }

    /// Waits until the server acknowledges holding the device's records through `sequence` (by
    /// default the log's head now).
    ///
    /// - Throws: the ``UploadError`` the upload failed with, once it has given up;
    ///   `CancellationError` when the task is cancelled.
    public nonisolated func waitUntilUploaded(through sequence: UInt64? = nil) async throws {
        let target = try sequence ?? engine.store.headSequence()
        for await progress in progressUpdates {
            if progress.acknowledgedThrough >= target { return }
            if case .failed(let error) = progress.status { throw error }
        }
        try Task.checkCancellation()
    }

    /// Calls `observer` with the first sequence of each moot batch whose answer the upload is
    /// about to await (for tests).
    func observeMootBatches(_ observer: @escaping @Sendable (UInt64) -> Void) {
        willAwaitMootBatch = observer
    }

    // MARK: Running

    /// Starts the background upload (nothing when it runs already): it uploads what is pending,
    /// then waits for commits (and this engine's erasures, whose notices go at once) and uploads
    /// them, retrying failures after the backoff, until
    /// ``stop()``, the engine closes, or a failure that retrying cannot fix.
    public func start() {
        guard !loopRunning else { return }
        loopRunning = true
        loop = Task { await self.run() }
    }

    /// Stops the background upload and waits until it has ended (a batch in flight is abandoned;
    /// the server stores it whole or not at all, and the next start asks where it stands).
    public func stop() async {
        guard let loop else { return }
        self.loop = nil
        loop.cancel()
        await loop.value
        broadcaster.update { $0.status = .stopped }
    }

    /// Uploads everything committed so far, now, and returns the progress once the server holds
    /// it: one pass, without retries (the background upload's passes wait while it runs).
    ///
    /// - Throws: ``UploadError``; `CancellationError` when the task is cancelled (nothing is
    ///   recorded as a failure then).
    @discardableResult
    public func uploadNow() async throws -> UploadProgress {
        try Task.checkCancellation()
        do {
            try await pass()
        } catch {
            // A pass cut short by cancellation ends in whatever its last step threw (a request
            // abandoned, say): the caller hears of the cancellation, not of a network error.
            try Task.checkCancellation()
            throw error
        }
        return progress
    }

    private var isFailed: Bool {
        if case .failed = progress.status { return true }
        return false
    }

    /// The background upload: passes, waits for commits, backs off after failures.
    private func run() async {
        var attempt = 0
        var generator = SystemRandomNumberGenerator()
        while !Task.isCancelled {
            do {
                // Read before the pass reads the notices: an erasure committed after it wakes the wait.
                let erasures = engine.erasureCount
                try await pass()
                attempt = 0
                let acknowledged = progress.acknowledgedThrough
                guard progress.headSequence <= acknowledged else { continue }
                broadcaster.update { $0.status = .idle }
                guard await engine.waitForCommit(past: acknowledged, orErasureAfter: erasures) else { break }
                if configuration.coalescingDelay > .zero {
                    let head = try await onStoreQueue { try $0.headSequence() }
                    if head - min(head, acknowledged) < UInt64(recordLimit) {
                        try await clock.sleep(for: configuration.coalescingDelay)
                    }
                }
            } catch let error as UploadError {
                if Task.isCancelled { break }
                guard error.isRetryable else { break }  // pass() has published the failure
                serverNext = nil  // ask the server where it stands before the next batch
                attempt += 1
                let delay = configuration.backoff.delay(forAttempt: attempt, using: &generator)
                broadcaster.update { $0.status = .retrying(attempt: attempt, delay: delay) }
                do { try await clock.sleep(for: delay) } catch { break }
            } catch {
                break  // cancelled while waiting
            }
        }
        if !isFailed { broadcaster.update { $0.status = .stopped } }
        loopRunning = false
    }

    /// Sends batches until the server holds the log as far as it was when the pass last read it.
    private func pass() async throws(UploadError) {
        await passGate.acquire()
        defer { passGate.release() }
        broadcaster.update { $0.status = .uploading }
        do {
            try await sendPending()
            let after: UploadProgress.Status = loopRunning ? .idle : .stopped
            broadcaster.update { $0.status = after }
        } catch {
            if Task.isCancelled { throw error }
            broadcaster.update { progress in
                progress.failures += 1
                progress.lastError = error
                if !error.isRetryable { progress.status = .failed(error) }
            }
            throw error
        }
    }

    private func sendPending() async throws(UploadError) {
        var next: UInt64
        if let serverNext {
            next = serverNext
        } else {
            next = try await reconcile()
        }
        // Erasures first: the server must know which sequences will never come before a batch
        // skips them, and must erase what it already holds.
        if try await sendErasureNotices() { next = try await reconcile() }
        var definitionsResent = false
        var conflicts = 0
        // The batch after the one being answered, sent before that answer came: the server's
        // in-order check waits for the earlier batch's transaction (the store's row lock), so
        // the reading, sending and checking of one batch overlap the storing of the one before.
        var ahead: SentBatch?
        // Off for one batch after a batch sent ahead overtook the one before it.
        var sendingAhead = true
        while true {
            if Task.isCancelled {
                await ahead?.cancel()
                throw UploadError.network(message: "cancelled")
            }
            let sent: SentBatch
            if let ahead {
                sent = ahead
            } else {
                let pending = try await readBatch(from: next, known: knownDefinitions)
                broadcaster.update { $0.headSequence = pending.head }
                guard !pending.batch.records.isEmpty else { return }
                sent = SentBatch(pending, client: client, ahead: false)
            }
            ahead = nil
            let pending = sent.pending
            let count = pending.batch.records.count
            let end = pending.batch.firstSequence + UInt64(count)
            do {
                if sendingAhead {
                    let following = try await readBatch(from: end, known: knownDefinitions.union(pending.named))
                    broadcaster.update { $0.headSequence = following.head }
                    if following.batch.firstSequence == end, !following.batch.records.isEmpty {
                        ahead = SentBatch(following, client: client, ahead: true)
                    }
                }
            } catch {
                await sent.cancel()
                throw error
            }
            let outcome: UploadClient.Outcome
            do {
                outcome = try await sent.outcome()
            } catch {
                await ahead?.cancel()
                throw error
            }
            // Any answer but an acceptance that ends where the batch sent ahead starts makes that
            // batch moot: the server refuses it (it starts past the server's position) or holds
            // it already. Its answer is awaited, not cancelled: a request the server had received
            // whole is still checked, and stored once the batch before it is; cancelled, its
            // records would go uncounted (and come back as already held).
            var mootAhead: SentBatch?
            if case .accepted(let acknowledged, _, _) = outcome {
                // Awaited once this acceptance is counted and kept.
                if acknowledged != end { (mootAhead, ahead) = (ahead, nil) }
            } else if let moot = ahead {
                ahead = nil
                _ = try await settle(moot)
            }
            switch outcome {
            case .accepted(let acknowledged, let stored, let alreadyHeld):
                guard acknowledged >= end else {
                    await mootAhead?.cancel()
                    throw UploadError.invalidResponse(
                        message:
                            "a batch of sequences \(pending.batch.firstSequence)–\(end - 1) acknowledged only up to \(acknowledged)"
                    )
                }
                knownDefinitions.formUnion(pending.named)
                conflicts = 0
                sendingAhead = true
                // This batch's acceptance is counted and kept before a moot batch's answer is
                // awaited: that answer may be a failure, which ends the pass.
                countAccepted(stored: stored, alreadyHeld: alreadyHeld)
                do {
                    try await acknowledge(acknowledged)
                } catch {
                    await (ahead ?? mootAhead)?.cancel()
                    throw error
                }
                next = acknowledged
                if let moot = mootAhead, let mootAcknowledged = try await settle(moot), mootAcknowledged > next {
                    try await acknowledge(mootAcknowledged)
                    next = mootAcknowledged
                }
            case .conflict(let serverNext, let recordIndex, let message):
                if let recordIndex {
                    throw UploadError.diverged(sequence: next + UInt64(recordIndex), message: message)
                }
                conflicts += 1
                guard conflicts <= 8 else {
                    throw UploadError.server(status: 409, message: "the server's position keeps moving: \(message)")
                }
                if sent.ahead, serverNext < pending.batch.firstSequence, pending.batch.firstSequence == next {
                    // Sent ahead, it reached the server's check before the batch before it was
                    // stored (that batch's acceptance is `next`): the server's answer is older
                    // than the acceptance. It goes again, alone.
                    sendingAhead = false
                    continue
                }
                next = try await follow(serverNext, head: pending.head)
            case .tooLarge(let message):
                guard count > 1 else {
                    throw UploadError.recordTooLarge(
                        sequence: next, bytes: pending.batch.records[0].count, message: message)
                }
                recordLimit = max(1, count / 2)
            case .badRequest(let message):
                // The server may have lost definitions it acknowledged (a restored database):
                // send every definition once more before giving up.
                guard !definitionsResent, !knownDefinitions.isEmpty else {
                    throw UploadError.rejected(status: 400, message: message)
                }
                definitionsResent = true
                knownDefinitions.removeAll()
            }
        }
    }

    /// Sends the erasure notices the server has not acknowledged; returns whether there were any.
    private func sendErasureNotices() async throws(UploadError) -> Bool {
        let (store, destination) = (engine.store, destination)
        let notices = try await onStoreQueue(store: store) { try BatchReader.pendingNotices(in: $0, for: destination) }
        guard !notices.isEmpty else { return false }
        let through = try await client.postErasures(notices)
        guard through >= notices[notices.count - 1].number else {
            throw UploadError.invalidResponse(
                message: "erasure notices up to \(notices[notices.count - 1].number) acknowledged only up to \(through)"
            )
        }
        try await onStoreWriteQueue { try $0.setErasureCheckpoint(through, for: destination) }
        return true
    }

    /// Asks the server's position and follows it; returns the sequence to send from.
    private func reconcile() async throws(UploadError) -> UInt64 {
        let position = try await client.position()
        let head = try await onStoreQueue { try $0.headSequence() }
        broadcaster.update { $0.headSequence = head }
        return try await follow(position, head: head)
    }

    /// Adopts the server's next expected sequence `position` (from its position or a 409): it
    /// becomes the checkpoint, whether ahead of the stored one (a checkpoint write lost) or behind
    /// it (the server lost records: they go again, and definitions with them).
    private func follow(_ position: UInt64, head: UInt64) async throws(UploadError) -> UInt64 {
        guard position >= 1, position <= head + 1 else {
            throw UploadError.diverged(
                sequence: head + 1,
                message:
                    "the server holds this store's records up to \(position - 1) but the device's log ends at \(head)")
        }
        if let known = serverNext, position < known { knownDefinitions.removeAll() }
        try await acknowledge(position)
        return position
    }

    /// Counts a batch the server accepted in the progress. Counted before the acknowledgement
    /// is published: whoever waits for `acknowledgedThrough` then reads counters that include it.
    private func countAccepted(stored: Int, alreadyHeld: Int) {
        broadcaster.update { progress in
            progress.recordsUploaded += stored
            progress.recordsAlreadyHeld += alreadyHeld
            progress.batchesUploaded += 1
        }
    }

    /// Awaits the answer to a batch sent ahead that the answer before it made moot, and counts
    /// it if the server stored it all the same; where the server stands after it, if accepted.
    private func settle(_ moot: SentBatch) async throws(UploadError) -> UInt64? {
        willAwaitMootBatch?(moot.pending.batch.firstSequence)
        guard case .accepted(let acknowledged, let stored, let alreadyHeld) = try await moot.outcome() else {
            return nil
        }
        countAccepted(stored: stored, alreadyHeld: alreadyHeld)
        return acknowledged
    }

    /// Records the server's acknowledged `next` in memory, in the store and in the progress.
    private func acknowledge(_ next: UInt64) async throws(UploadError) {
        serverNext = next
        let destination = destination
        let stored = try await onStoreQueue { try $0.uploadCheckpoint(for: destination) }
        if stored != next {
            try await onStoreWriteQueue { try $0.setUploadCheckpoint(next, for: destination) }
        }
        broadcaster.update { $0.acknowledgedThrough = next - 1 }
    }

    /// The batch from `next` on, leaving out the definitions in `known`.
    private func readBatch(from next: UInt64, known: Set<DefinitionName>) async throws(UploadError) -> PendingBatch {
        let store = engine.store
        let (limit, bytes) = (recordLimit, configuration.maximumBatchBytes)
        return try await onStoreQueue(store: store) { store in
            try BatchReader.read(from: store, start: next, maximumRecords: limit, maximumBytes: bytes, known: known)
        }
    }

    // MARK: Store access off the cooperative pool

    private func onStoreQueue<R: Sendable>(_ body: @escaping @Sendable (StoreReadTransaction) throws -> R)
        async throws(UploadError) -> R
    {
        try await onStoreQueue(store: engine.store) { store in try store.read(body) }
    }

    private func onStoreWriteQueue(_ body: @escaping @Sendable (StoreWriteTransaction) throws -> Void)
        async throws(UploadError)
    {
        try await onStoreQueue(store: engine.writableStore) { store in try store.write(body) }
    }

    private func onStoreQueue<Store: Sendable, R: Sendable>(
        store: Store, _ body: @escaping @Sendable (Store) throws -> R
    ) async throws(UploadError) -> R {
        do {
            return try await storeQueue.run { try body(store) }
        } catch {
            throw UploadError.store(ErrorCause(error))
        }
    }
}
