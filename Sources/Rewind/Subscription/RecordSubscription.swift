import RewindStore

/// Every committed record of the log from a global sequence on: first those already in the store,
/// then new ones as the engine commits them, with no gap and no duplicate across the switch
/// (a catch-up subscription). Iteration ends when the task is cancelled or the engine closes;
/// cancelling releases everything the subscription held.
///
/// ```swift
/// for try await record in engine.records(from: 1) {
///     print(record.sequence, record.session, record.event)
/// }
/// ```
///
/// Records are read from the store in batches, so a subscriber that falls behind catches up
/// from the log, never from an in-memory buffer that could overflow. Commits made by other
/// writers of the store (another process, another engine) are seen within
/// ``EngineConfiguration/externalCommitPollInterval`` (100 ms by default), or at this engine's
/// next commit when polling is off.
public struct RecordSubscription: AsyncSequence, Sendable {
    /// Each element is a committed record.
    public typealias Element = TransitionRecord

    let store: TransitionStore
    let notifier: HeadNotifier
    let start: UInt64
    let batchSize: Int

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(store: store, notifier: notifier, next: Swift.max(start, 1), batchSize: batchSize)
    }

    /// Reads the log in batches and waits for commits when it is caught up.
    public struct Iterator: AsyncIteratorProtocol {
        let store: TransitionStore
        let notifier: HeadNotifier
        var next: UInt64
        let batchSize: Int
        var buffer: [TransitionRecord] = []
        var position = 0

        /// The next record; `nil` once the task is cancelled (also with records of the last batch
        /// read still unreturned) or the engine closed.
        public mutating func next() async throws -> TransitionRecord? {
            while true {
                // Checked per record: a batch holds up to `batchSize` records, which a cancelled
                // subscriber must not go on receiving.
                if Task.isCancelled { return nil }
                if position < buffer.count {
                    let record = buffer[position]
                    position += 1
                    next = record.sequence + 1
                    return record
                }
                if notifier.closed { return nil }
                do {
                    buffer = try store.records(from: next, limit: batchSize)
                } catch  where notifier.closed {
                    // The engine closed (and its store with it) while we read: the iteration ends.
                    return nil
                }
                position = 0
                if !buffer.isEmpty { continue }
                guard await notifier.wait(untilPast: next - 1) else { return nil }
            }
        }
    }
}
