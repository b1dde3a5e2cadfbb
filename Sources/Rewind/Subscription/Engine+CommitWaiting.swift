import RewindStore

extension Engine {
    /// Suspends until the log's head passes global sequence `sequence` (this engine's commits wake
    /// at once; other writers' within ``EngineConfiguration/externalCommitPollInterval``), without
    /// reading any record: for a reader that reads the log in its own transactions and only needs
    /// to know when there is more (the uploader of `RewindSync`).
    ///
    /// - Returns: `true` when the head has passed `sequence`; `false` once the engine is closed or
    ///   the task cancelled.
    package func waitForCommit(past sequence: UInt64) async -> Bool {
        await notifier.wait(untilPast: sequence)
    }
}
