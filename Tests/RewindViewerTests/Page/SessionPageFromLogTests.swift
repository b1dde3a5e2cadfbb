import Foundation
import Rewind
import RewindTestSupport
import RewindViewer
import Testing

/// A session's page rendered from another log (as a fleet server renders an uploaded session)
/// is the engine's page, byte for byte.
struct SessionPageFromLogTests {
    @Test func thePageFromAnotherLogIsTheEnginesPage() async throws {
        let (fixture, engine) = try await SessionPageTests.engineWithSession()
        defer {
            fixture.remove()
            engine.close()
        }
        let log = try InMemoryTransitionLog(copying: engine)
        let rules = try Redaction(paths: ["payload.email", "context.token"])
        let ticker = try TickerMachine.machine()
        for session in [SessionID("kanji-1"), SessionID("ticker-1")] {
            let expected = try SessionPage(engine: engine, session: session, redacting: rules, verifyingAgainst: ticker)
                .html()
            // Registered or not, the records re-run the same and the diagram is the stored definition.
            for registered in [[try KanjiNavigation.machine(), ticker], []] {
                let page = try SessionPage(
                    log: log, session: session, registered: registered, redacting: rules, verifyingAgainst: ticker
                ).html()
                #expect(page == expected, "\(session), \(registered.count) registered")
            }
        }
        #expect(throws: EngineError.unknownSession(SessionID("nobody"))) {
            try SessionPage(log: log, session: SessionID("nobody")).html()
        }
    }
}
