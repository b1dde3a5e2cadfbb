import Dispatch
import NIOPosix
import Synchronization

/// Runs asynchronous PostgreSQL work from synchronous code that may block its thread.
///
/// The log-reading interface (`TransitionLogReader`) is synchronous, as replay over LMDB needs,
/// and postgres-nio is asynchronous. Replay on the server therefore runs on a thread that may
/// block — a thread of ``NIOThreadPool/singleton``, entered through ``run(_:)`` — and each query
/// is started there as a `Task` (on the cooperative pool, where postgres-nio's awaits belong)
/// that the blocking thread waits for with a semaphore (``wait(_:)``). Waiting on a cooperative
/// thread or an event loop could starve the very executor the query needs, so neither is ever
/// the waiting thread.
enum BlockingBridge {
    /// Runs `body` on a thread of NIO's blocking-I/O pool and returns what it returns.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }

    /// Runs `operation` as a task and blocks the calling thread until it has finished.
    ///
    /// - Precondition: not called on an event loop (the query could need it); call it from a
    ///   thread that ``run(_:)`` gave, or another thread that may block.
    static func wait<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
        precondition(MultiThreadedEventLoopGroup.currentEventLoop == nil,
                     "a PostgreSQL log reader blocks its thread: read it off the event loops (BlockingBridge.run)")
        let outcome = Outcome<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            outcome.result.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        // The task stored its result before signalling.
        guard let result = outcome.result.withLock({ $0 }) else {
            preconditionFailure("the task signalled without a result")
        }
        return try result.get()
    }

    /// Where the task leaves its result for the waiting thread.
    private final class Outcome<T: Sendable>: Sendable {
        let result = Mutex<Result<T, any Error>?>(nil)
    }
}
