import Foundation
import Rewind
import RewindServer
import Testing

/// `rewind session-test SESSION --server URL --key KEY`: the regression test written from the
/// fleet server's copy of a session (its archive) is the one written from the device's store.
@Suite struct SessionTestServerTests {
    @Test func theServersCopyWritesTheSameTestAsTheDevicesStore() async throws {
        let device = try Device.withExamples()
        try await device.runVariety()
        let server = try await ReplayRoutesTests.serve([device])
        let cli = ServerCLITests()
        for session in ["kanji-1", "lv-1"] {
            try await cli.expectSame(["session-test", session], device: device, server: server)
            // Without --store: the one store of the app that has the session.
            try await cli.expectSame(["session-test", session], device: device, server: server, naming: false)
        }
        let local = try await ServerCLITests.rewind(["session-test", "lv-1", "--store", device.directory])
        #expect(local.status == 0, "\(local)")
        #expect(local.output.contains("@Test(\"session lv-1 (loading-view, versions 1–"), "\(local)")
        let unknown = try await ServerCLITests.rewind([
            "session-test", "nobody", "--server", "http://127.0.0.1:\(server.port)", "--key", server.app.readKey.token,
        ])
        #expect(unknown.status == 2 && unknown.errors.contains("unknown session 'nobody'"), "\(unknown)")
        try await server.stop()
    }
}
