import Dispatch
import Foundation
import Rewind
import RewindSync
import RewindTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Cancelling an upload is a cancellation, not a network failure: `uploadNow()` throws
/// `CancellationError` and the progress records no failure.
@Suite(.hangGuard) struct UploaderCancellationTests {
    @Test func cancellingUploadNowThrowsCancellationErrorAndRecordsNoFailure() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [ExampleMachines.Onboarding.machine()])
        defer { engine.close() }
        _ = try await engine.startSession(id: "pending", machine: ExampleMachines.Onboarding.definition.name)

        let server = try SilentListener()
        let uploader = Uploader(
            engine: engine, server: URL(string: "http://127.0.0.1:\(server.port)")!, key: "rewind_ingest_x",
            configuration: UploaderConfiguration(requestTimeout: .seconds(600)))
        let upload = Task { try await uploader.uploadNow() }
        let connection = await server.acceptOne()
        defer { close(connection) }
        upload.cancel()
        let result = await upload.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(uploader.progress.failures == 0)
        #expect(uploader.progress.lastError == nil)
    }
}
