import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Rewind

/// The package's one way to run blocking work off the cooperative pool: work runs in submission
/// order, its result or typed error comes back, and callers suspend instead of holding a thread.
@Suite(.timeLimit(.minutes(2))) struct BlockingQueueTests {
    struct Refused: Error, Equatable { var index: Int }

    @Test func workRunsInTheOrderItWasSubmittedAndItsResultComesBack() async throws {
        let queue = BlockingQueue(label: "rewind.test.order")
        let seen = Mutex<[Int]>([])
        for index in 0..<100 { queue.start { seen.withLock { $0.append(index) } } }
        let order = await queue.run { seen.withLock { $0 } }
        #expect(order == Array(0..<100))
    }

    @Test func aThrownErrorComesBackWithItsType() async {
        let queue = BlockingQueue(label: "rewind.test.error")
        do {
            _ = try await queue.run { () throws(Refused) -> Int in throw Refused(index: 7) }
            Issue.record("expected Refused")
        } catch {
            // `error` is a `Refused`: the queue keeps the body's error type.
            #expect(error == Refused(index: 7))
        }
    }

    /// More callers than the pool has threads wait on work that blocks until a task started after
    /// them signals it. Were a caller to hold its thread while it waits, that task would never
    /// run and the test would hang until its time limit.
    @Test func callersSuspendAndLeaveThePoolsThreadsFree() async {
        let queue = BlockingQueue(label: "rewind.test.blocking")
        let released = DispatchSemaphore(value: 0)
        let callers = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let results = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<callers {
                group.addTask {
                    await queue.run {
                        released.wait()
                        return index
                    }
                }
            }
            group.addTask {
                for _ in 0..<callers { released.signal() }
                return nil
            }
            var results: [Int] = []
            for await result in group { if let result { results.append(result) } }
            return results
        }
        #expect(results.sorted() == Array(0..<callers))
    }
}
