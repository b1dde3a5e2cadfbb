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

        init(holdingTheFirstBatchBack: Bool) {
            self.holdingTheFirstBatchBack = holdingTheFirstBatchBack
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
            let answer = state.withLock { state -> LoopbackHTTPServer.Answer in
                let count = batch.records.count
                guard first <= state.next else {
                    state.posts.append(Post(first: first, count: count, status: 409))
                    let body = "{\"error\":\"starts past the server's position\",\"nextSequence\":\(state.next)}"
                    return LoopbackHTTPServer.Answer(status: 409, body: Array(body.utf8))
                }
                let end = first + UInt64(count)
                let held = Int(min(end, state.next) - first)
                state.next = max(state.next, end)
                state.posts.append(Post(first: first, count: count, status: 200))
                return json(
                    200,
                    IngestionResult(storeID: storeID, nextSequence: state.next, stored: count - held, alreadyHeld: held)
                )
            }
            if answer.status == 409 { refusedOne.signal() }
            return answer
        }

        private func json(_ status: Int, _ value: some Encodable) -> LoopbackHTTPServer.Answer {
            LoopbackHTTPServer.Answer(status: status, body: Array((try? JSONEncoder().encode(value)) ?? Data()))
        }
    }

    @Test func aBatchSentAheadAndRefusedBeforeTheOneBeforeItWasStoredGoesAgainAlone() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [ExampleMachines.Onboarding.machine()])
        defer { engine.close() }
        for index in 0..<7 {
            _ = try await engine.startSession(
                id: try SessionID("window-\(index)"), machine: ExampleMachines.Onboarding.definition.name)
        }
        let head = try engine.store.headSequence()
        #expect(head == 7)

        let fake = PositionKeepingServer(holdingTheFirstBatchBack: true)
        let storeID = engine.store.storeID
        let server = try LoopbackHTTPServer { request in fake.respond(to: request, storeID: storeID) }
        let uploader = Uploader(
            engine: engine, server: URL(string: "http://127.0.0.1:\(server.port)")!, key: "rewind_ingest_x",
            configuration: UploaderConfiguration(maximumBatchRecords: 3, coalescingDelay: .zero))
        let progress = try await uploader.uploadNow()

        #expect(progress.acknowledgedThrough == head)
        #expect(progress.recordsUploaded == Int(head))
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

    @Test func batchesFollowEachOtherWithoutWaitingForAnswers() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [ExampleMachines.Onboarding.machine()])
        defer { engine.close() }
        for index in 0..<10 {
            _ = try await engine.startSession(
                id: try SessionID("steady-\(index)"), machine: ExampleMachines.Onboarding.definition.name)
        }
        // A server that answers every batch as soon as it comes.
        let fake = PositionKeepingServer(holdingTheFirstBatchBack: false)
        let storeID = engine.store.storeID
        let server = try LoopbackHTTPServer { request in fake.respond(to: request, storeID: storeID) }
        let uploader = Uploader(
            engine: engine, server: URL(string: "http://127.0.0.1:\(server.port)")!, key: "rewind_ingest_x",
            configuration: UploaderConfiguration(maximumBatchRecords: 2, coalescingDelay: .zero))
        let progress = try await uploader.uploadNow()
        #expect(progress.acknowledgedThrough == 10)
        #expect(progress.batchesUploaded == 5)
        #expect(progress.recordsAlreadyHeld == 0)
        // Each batch was stored once, in order (one sent ahead may have been refused and sent
        // again, if it came first).
        let accepted = fake.posts.filter { $0.status == 200 }
        #expect(accepted.map(\.first) == [1, 3, 5, 7, 9])
    }
}
