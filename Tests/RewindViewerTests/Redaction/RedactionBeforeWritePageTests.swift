import Foundation
import Rewind
import RewindTestSupport
import Testing

@testable import RewindViewer

/// A page of a session recorded under a redaction policy: the values were never written, so the
/// page (and the archive it embeds) cannot hold them; it shows the marker and the keyed hashes.
struct RedactionBeforeWritePageTests {
    @Test func aPageOfARedactedSessionHoldsTheMarkerAndHashesNotTheValues() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()]) {
            $0.durability = .noSync
            // A tick's payload is also the data `idle` is entered with: both paths are named.
            $0.redaction = [
                TickerMachine.name: [.keyedHash("payload.email"), .keyedHash("data.*.email"), .marker("context.token")]
            ]
        }
        defer { engine.close() }
        let ticker = try await engine.openSession(
            id: "ticker-1", machine: TickerMachine.name, context: ["token": "secret-token-XYZ"])
        for index in 0..<3 {
            _ = try await ticker.send(TickerMachine.tick, payload: ["email": .string("person\(index)@example.org")])
        }
        let page = try SessionPage(engine: engine, session: SessionID("ticker-1")).html()
        let text = String(decoding: page, as: UTF8.self)
        #expect(!text.contains("secret-token-XYZ"))
        #expect(!text.contains("@example.org"))
        #expect(text.contains("‹hash:"))
        #expect(text.contains(RedactionRule.markerText))
        // The view-time rules still apply on top (here to the hashes themselves).
        let redaction = try Redaction(paths: ["payload.email", "data.*.email"])
        let swept = try SessionPage(engine: engine, session: SessionID("ticker-1"), redacting: redaction).html()
        #expect(!String(decoding: swept, as: UTF8.self).contains("‹hash:"))
    }
}
