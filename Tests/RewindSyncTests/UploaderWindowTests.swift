import Dispatch
import Foundation
import Rewind
import RewindStore
import RewindTestSupport
import RewindWire
import Synchronization
import Testing

@testable import RewindSync

/// The uploader sends the next batch before the answer to the one before it comes. Against a
/// server on 127.0.0.1 that keeps a store's position as the fleet server does (a batch that starts
/// past it is a 409 naming it) and holds the first batch's answer back until the batch sent ahead
/// has been refused: the refusal, older than the first batch's acceptance, sends that batch again
/// alone, and every record goes up once.
@Suite(.hangGuard) struct UploaderWindowTests {
    /// What the server did with one `POST …/records`.
    struct Post: Equatable {
        var first: UInt64
        var count: Int
        var status: Int
    }

    /// A fleet server's ingestion position for one store, in memory.
    final class PositionKeepingServer: Sendable {
        private let state = Mutex<(next: UInt64, posts: [Post])>((1, []))
        /// Signalled once the server has refused a batch: the first batch's answer waits for it.
        let refusedOne = DispatchSemaphore(value: 0)
        /// Whether the first batch's check waits until a batch has been refused.
        let holdingTheFirstBatchBack: Bool
        /// A batch (its first sequence) whose check waits until the server stores another batch,
        /// or the uploader awaits the batch's answer as moot (``mootBatchAwaited(_:)``): as a
        /// request slow to reach the server's check would.
        let slowToCheck: UInt64?
        /// Whether the uploader awaits the answer of `slowToCheck`'s batch.
        private let slowBatchAwaited = Mutex(false)
        /// Signalled each time the server stores a batch, and when the uploader awaits the answer
        /// of `slowToCheck`'s batch.
        private let slowBatchMayGo = DispatchSemaphore(value: 0)
        /// Whether the server, storing the first batch, finds it holds the record after it
        /// already (as when another process of the device uploaded it meanwhile): its answer
        /// acknowledges past the batch's end.
        let holdingOneMoreAfterTheFirstBatch: Bool
        /// A batch (its first sequence) whose first request fails with a 500, storing nothing.
        let failingOnce: UInt64?

        init(
            holdingTheFirstBatchBack: Bool, slowToCheck: UInt64? = nil, holdingOneMoreAfterTheFirstBatch: Bool = false,
            failingOnce: UInt64? = nil
        ) {
            self.holdingTheFirstBatchBack = holdingTheFirstBatchBack
            self.slowToCheck = slowToCheck
            self.holdingOneMoreAfterTheFirstBatch = holdingOneMoreAfterTheFirstBatch
            self.failingOnce = failingOnce
        }

        var posts: [Post] { state.withLock { $0.posts } }

        func respond(to request: LoopbackHTTPServer.Request, storeID: UUID) -> LoopbackHTTPServer.Answer {
            if request.method == "GET", request.path.hasSuffix("/position") {
                let next = state.withLock { $0.next }
                return json(200, StorePosition(storeID: storeID, nextSequence: next, mayUpload: true))
            }
            guard request.method == "POST", request.path.hasSuffix("/records"),
                let batch = try? RecordBatch(decoding: request.body)
            else { return LoopbackHTTPServer.Answer(status: 404, body: Array("{\"error\":\"no route\"}".utf8)) }
            let first = batch.firstSequence
            if holdingTheFirstBatchBack, first == 1, state.withLock({ $0.posts.isEmpty }) {
                // The first batch is checked only after the batch sent behind it was refused.
                _ = refusedOne.wait(timeout: .now() + 60)
            }
            if first == slowToCheck, state.withLock({ !$0.posts.contains { $0.first == first } }) {
                // Until another batch is stored or the uploader awaits this one's answer; the
                // deadline only keeps a broken uploader from holding the test for ever.
                let stored = { self.state.withLock { $0.posts.filter { $0.status == 200 }.count } }
                let before = stored()
                while stored() == before, !slowBatchAwaited.withLock({ $0 }),
                    slowBatchMayGo.wait(timeout: .now() + 60) == .success
                {}
            }
            let answer = state.withLock { state -> LoopbackHTTPServer.Answer in
                let count = batch.records.count
                if first == failingOnce, !state.posts.contains(where: { $0.first == first }) {
                    state.posts.append(Post(first: first, count: count, status: 500))
                    return LoopbackHTTPServer.Answer(status: 500, body: Array("{\"error\":\"failed\"}".utf8))
                }
                guard first <= state.next else {
                    state.posts.append(Post(first: first, count: count, status: 409))
                    let body = "{\"error\":\"starts past the server's position\",\"nextSequence\":\(state.next)}"
                    return LoopbackHTTPServer.Answer(status: 409, body: Array(body.utf8))
                }
                let end = first + UInt64(count)
                let held = Int(min(end, state.next) - first)
                state.next = max(state.next, end)
                if holdingOneMoreAfterTheFirstBatch, first == 1 { state.next += 1 }
                state.posts.append(Post(first: first, count: count, status: 200))
                return json(
                    200,
                    IngestionResult(storeID: storeID, nextSequence: state.next, stored: count - held, alreadyHeld: held)
                )
            }
            if answer.status == 409 { refusedOne.signal() } else if answer.status == 200 { slowBatchMayGo.signal() }
            return answer
        }

        /// The uploader is about to await the answer of the moot batch that starts at `first`.
        func mootBatchAwaited(_ first: UInt64) {
            guard first == slowToCheck else { return }
            slowBatchAwaited.withLock { $0 = true }
            slowBatchMayGo.signal()
        }

        private func json(_ status: Int, _ value: some Encodable) -> LoopbackHTTPServer.Answer {
            LoopbackHTTPServer.Answer(status: status, body: Array((try? JSONEncoder().encode(value)) ?? Data()))
        }
    }

    @Test func aBatchSentAheadAndRefusedBeforeTheOneBeforeItWasStoredGoesAgainAlone() async throws {
        let fake = PositionKeepingServer(holdingTheFirstBatchBack: true)
        let progress = try await upload(sessions: 7, batchRecords: 3, to: fake)
        #expect(progress.acknowledgedThrough == 7)
        #expect(progress.recordsUploaded == 7)
        #expect(progress.recordsAlreadyHeld == 0)
        #expect(progress.failures == 0)
        let posts = fake.posts
        // The batch sent ahead was refused before the first was stored, then went again.
        #expect(posts.first == Post(first: 4, count: 3, status: 409))
        let accepted = posts.filter { $0.status == 200 }
        #expect(accepted.map(\.first) == [1, 4, 7])
        #expect(accepted.map(\.count) == [3, 3, 1])
        // The first batch went once: nothing the server stored was sent again.
        #expect(posts.filter { $0.first == 1 }.count == 1)
    }

    /// The batch sent ahead of a refused one is moot, but the server may still check it after the
    /// refused batch has gone again and been stored, and then store it: its answer is awaited
    /// (not the request cancelled), so nothing goes again, and every record counts once.
    @Test func aMootBatchSentAheadIsAnsweredBeforeTheRefusedOneGoesAgain() async throws {
        // Batches 1–3, 4–6 (sent ahead, refused), then 7 sent ahead of 4–6's answer: moot, and
        // slow to reach the check.
        let fake = PositionKeepingServer(holdingTheFirstBatchBack: true, slowToCheck: 7)
        let progress = try await upload(sessions: 7, batchRecords: 3, to: fake) { uploader, _ in
            await uploader.observeMootBatches { fake.mootBatchAwaited($0) }
            return try await uploader.uploadNow()
        }
        #expect(progress.acknowledgedThrough == 7)
        #expect(progress.recordsUploaded == 7)
        #expect(progress.recordsAlreadyHeld == 0)
        #expect(progress.failures == 0)
        // The moot batch was refused before 4–6 went again; nothing was stored twice.
        #expect(
            fake.posts == [
                Post(first: 4, count: 3, status: 409), Post(first: 1, count: 3, status: 200),
                Post(first: 7, count: 1, status: 409), Post(first: 4, count: 3, status: 200),
                Post(first: 7, count: 1, status: 200),
            ])
    }

    /// An acceptance that ends past its batch (the server held more already) makes the batch sent
    /// ahead moot; when the request of that moot batch then fails, the pass ends, but the
    /// acceptance before it is counted and kept: the next pass starts after it.
    @Test func anAcceptanceIsKeptWhenTheMootBatchAfterItFails() async throws {
        // Batch 1–3 is stored, and the server finds it holds 4 too; 4–6, sent ahead, fails.
        let fake = PositionKeepingServer(
            holdingTheFirstBatchBack: false, holdingOneMoreAfterTheFirstBatch: true, failingOnce: 4)
        try await upload(sessions: 7, batchRecords: 3, to: fake) { uploader, store in
            await #expect(throws: UploadError.self) { try await uploader.uploadNow() }
            #expect(uploader.progress.recordsUploaded == 3)
            #expect(uploader.progress.acknowledgedThrough == 4)
            #expect(try BatchReader.checkpoint(in: store, for: uploader.destination) == 5)
            let progress = try await uploader.uploadNow()
            #expect(progress.recordsUploaded == 6)
            #expect(progress.recordsAlreadyHeld == 0)
            #expect(progress.acknowledgedThrough == 7)
        }
        // The first pass's two batches were in flight together, so the server may have checked
        // either first; the second pass started from the position the first kept: 5–7, once.
        let posts = fake.posts
        #expect(posts.count == 3)
        #expect(posts.prefix(2).contains(Post(first: 1, count: 3, status: 200)))
        #expect(posts.prefix(2).contains(Post(first: 4, count: 3, status: 500)))
        #expect(posts.last == Post(first: 5, count: 3, status: 200))
    }

    @Test func batchesFollowEachOtherWithoutWaitingForAnswers() async throws {
        // A server that answers every batch as soon as it comes.
        let fake = PositionKeepingServer(holdingTheFirstBatchBack: false)
        let progress = try await upload(sessions: 10, batchRecords: 2, to: fake)
        #expect(progress.acknowledgedThrough == 10)
        #expect(progress.batchesUploaded == 5)
        #expect(progress.recordsAlreadyHeld == 0)
        // Each batch was stored once, in order (one sent ahead may have been refused and sent
        // again, if it came first).
        let accepted = fake.posts.filter { $0.status == 200 }
        #expect(accepted.map(\.first) == [1, 3, 5, 7, 9])
    }

    /// Starts `sessions` sessions (one record each) in an engine of its own and uploads its store
    /// to `fake`, `batchRecords` records a batch; the upload's progress.
    private func upload(sessions: Int, batchRecords: Int, to fake: PositionKeepingServer) async throws
        -> UploadProgress
    {
        try await upload(sessions: sessions, batchRecords: batchRecords, to: fake) { uploader, _ in
            try await uploader.uploadNow()
        }
    }

    /// Starts `sessions` sessions (one record each) in an engine of its own and runs `body` with an
    /// uploader of its store to `fake`, `batchRecords` records a batch, and the store.
    private func upload<R>(
        sessions: Int, batchRecords: Int, to fake: PositionKeepingServer,
        _ body: (Uploader, TransitionStoreReader) async throws -> R
    ) async throws -> R {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [ExampleMachines.Onboarding.machine()])
        defer { engine.close() }
        for index in 0..<sessions {
            _ = try await engine.startSession(
                id: try SessionID("window-\(index)"), machine: ExampleMachines.Onboarding.definition.name)
        }
        #expect(try engine.store.headSequence() == UInt64(sessions))
        let storeID = engine.store.storeID
        let server = try LoopbackHTTPServer { request in fake.respond(to: request, storeID: storeID) }
        let uploader = Uploader(
            engine: engine, server: URL(string: "http://127.0.0.1:\(server.port)")!, key: "rewind_ingest_x",
            configuration: UploaderConfiguration(maximumBatchRecords: batchRecords, coalescingDelay: .zero))
        return try await body(uploader, engine.store)
    }
}
