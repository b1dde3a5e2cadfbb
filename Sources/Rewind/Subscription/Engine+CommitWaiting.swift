import RewindStore

extension Engine {
    /// Suspends until the log's head passes global sequence `sequence` (this engine's commits wake
    /// at once; other writers' within ``EngineConfiguration/externalCommitPollInterval``), without
    /// reading any record: for a reader that reads the log in its own transactions and only needs
    /// to know when there is more (the uploader of `RewindSync`).
    ///
    /// With `erasures` (an ``erasureCount`` read before the caller last looked at the store), an
    /// erasure this engine commits after that count wakes it too: the log's head does not move,
    /// but the uploader has a notice to send.
    ///
    /// - Returns: `true` when the head has passed `sequence` (or such an erasure committed);
    ///   `false` once the engine is closed or the task cancelled.
    package func waitForCommit(past sequence: UInt64, orErasureAfter erasures: UInt64? = nil) async -> Bool {
        await notifier.wait(untilPast: sequence, orErasureAfter: erasures)
    }

    /// How many erasures (``erase(_:)``, ``erase(where:)``, retention passes) this engine has
    /// committed since it opened.
    package var erasureCount: UInt64 { notifier.erasureCount }
}
