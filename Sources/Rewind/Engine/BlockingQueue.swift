import Dispatch

/// A serial queue with a thread of its own for work that blocks: a synced commit (LMDB's writer
/// lock and its `fsync`), a large store read, a checkpoint write. The package's one way to run
/// blocking work off Swift's cooperative pool: callers suspend and are resumed with the result,
/// and no thread of the pool ever waits for the work. The engine's commit thread
/// (``CommitQueue``) and the uploader's store reads (RewindSync) each have one.
package final class BlockingQueue: Sendable {
    private let queue: DispatchQueue

    /// A queue whose thread is named `label` (it shows in backtraces and profilers).
    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `body` on the queue, after the work submitted before it, and returns its result; the
    /// caller suspends meanwhile.
    package func run<R: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> R
    ) async throws(Failure) -> R {
        let result: Result<R, Failure> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result(catching: body)) }
        }
        return try result.get()
    }

    /// Starts `body` on the queue, after the work submitted before it, without waiting for it.
    package func start(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }
}
