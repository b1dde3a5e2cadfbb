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
    /// A socket of 127.0.0.1 that listens and never answers: requests to it hang.
    private struct SilentServer: ~Copyable {
        let descriptor: Int32
        let port: Int

        init() throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let descriptor = descriptor
            try withUnsafeMutablePointer(to: &address) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    guard bind(descriptor, $0, length) == 0, getsockname(descriptor, $0, &length) == 0,
                        listen(descriptor, 8) == 0
                    else { throw POSIXError(.EADDRNOTAVAIL) }
                }
            }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        /// Returns once a client has connected (its request is then in flight, unanswered).
        func acceptOne() async -> Int32 {
            let descriptor = descriptor
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: accept(descriptor, nil, nil)) }
            }
        }

        deinit { close(descriptor) }
    }

    @Test func cancellingUploadNowThrowsCancellationErrorAndRecordsNoFailure() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [ExampleMachines.Onboarding.machine()])
        defer { engine.close() }
        _ = try await engine.startSession(id: "pending", machine: ExampleMachines.Onboarding.definition.name)

        let server = try SilentServer()
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
