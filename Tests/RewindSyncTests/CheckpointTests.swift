import Foundation
import Rewind
import RewindStore
import RewindTestSupport
import Testing

@testable import RewindSync

/// The upload checkpoint lives in the store (`meta`), per destination, and survives reopening;
/// an uploader starts from it.
@Suite struct CheckpointTests {
    @Test func theCheckpointIsKeptInTheStorePerDestination() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        do {
            let engine = try fixture.open(registering: [ExampleMachines.Onboarding.machine()])
            defer { engine.close() }
            #expect(try BatchReader.checkpoint(in: engine.store, for: "https://a.example") == nil)
            try BatchReader.setCheckpoint(42, in: engine.writableStore, for: "https://a.example")
            try BatchReader.setCheckpoint(7, in: engine.writableStore, for: "https://b.example")
            try BatchReader.setCheckpoint(43, in: engine.writableStore, for: "https://a.example")
        }
        let engine = try fixture.open(registering: [ExampleMachines.Onboarding.machine()])
        defer { engine.close() }
        #expect(try BatchReader.checkpoint(in: engine.store, for: "https://a.example") == 43)
        #expect(try BatchReader.checkpoint(in: engine.store, for: "https://b.example") == 7)
        // The store stays consistent for its own check (the checkpoint is no projection's).
        #expect(try engine.checkStore().isConsistent)

        // An uploader resumes from it: its progress says what the server acknowledged, offline.
        let uploader = Uploader(engine: engine, server: URL(string: "https://a.example")!, key: "unused")
        #expect(uploader.progress.acknowledgedThrough == 42)
        #expect(uploader.progress.status == .stopped)
        let other = Uploader(
            engine: engine, server: URL(string: "https://c.example")!, key: "unused",
            configuration: UploaderConfiguration(destination: "https://b.example"))
        #expect(other.progress.acknowledgedThrough == 6)
    }
}
