import Foundation
import Synchronization
import Testing

/// The tests' `withDeadline`: its failure comes at the deadline also when the awaited work does
/// not answer cancellation (the hang it guards against: a graceful shutdown that never ends). A
/// `withDeadline` that waited for its body would keep the first test past its time limit.
@Suite(.timeLimit(.minutes(1))) struct WithDeadlineTests {
    @Test func theDeadlineFailsWithoutWaitingForWorkThatIgnoresCancellation() async throws {
        let release = DispatchSemaphore(value: 0)
        let ended = Mutex(false)
        let error = await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(.milliseconds(50), { "the stuck work" }) {
                // Work on a thread of its own that cancellation does not reach: it ends only
                // once the test lets it.
                try await onThread {
                    release.wait()
                    ended.withLock { $0 = true }
                }
            }
        }
        #expect(!ended.withLock { $0 }, "the failure came before the work ended")
        #expect(error?.description.contains("the stuck work") == true)
        release.signal()
    }

    @Test func aResultBeforeTheDeadlineIsReturned() async throws {
        #expect(try await withDeadline(.seconds(60), { "a value" }) { 42 } == 42)
    }
}
