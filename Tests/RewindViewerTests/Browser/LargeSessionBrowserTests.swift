import Foundation
import Rewind
import RewindTestSupport
import Testing

@testable import RewindViewer

/// A 100,000-version session's page works in the browser. How long it takes to open is measured
/// and printed (see README's viewer section), not asserted: speed depends on the machine.
extension ViewerBrowserTests {
    @Suite struct LargeSessionBrowserTests {
        static let versions = 100_000

        @Test func aHundredThousandVersionSessionOpensAndMoves() async throws {
            let fixture = try EngineFixture(snapshotInterval: 256)
            defer { fixture.remove() }
            let engine = try fixture.open(registering: [try TickerMachine.machine()])
            defer { engine.close() }
            let session = try await engine.openSession(
                id: "long-user", machine: TickerMachine.name, context: ["plan": "pro"])
            var sent = 1
            while sent < Self.versions {
                let count = min(2_000, Self.versions - sent)
                let events = (sent..<(sent + count)).map { index in
                    Event(
                        TickerMachine.tick,
                        payload: index % 10 == 0
                            ? ["screen": .string("item-\(index % 500)"), "n": .number(JSONNumber(index))] : .null)
                }
                _ = try await session.send(contentsOf: events)
                sent += count
            }
            let started = ContinuousClock.now
            let page = try SessionPage(engine: engine, session: session.id).html()
            let built = ContinuousClock.now - started
            let url = fixture.directory.url.appendingPathComponent("long.html")
            try page.write(to: url)

            let driver = try await WebDriver.start()
            do {
                try await driver.open(url)
                try await driver.wait(until: "document.documentElement.getAttribute('data-ready') === '1'")
                let ready =
                    try await driver.execute(
                        "return performance.getEntriesByName('rw-ready')[0].startTime;") as? Double
                let loaded =
                    try await driver.execute(
                        "var n = performance.getEntriesByType('navigation')[0]; return n.domContentLoadedEventEnd;")
                    as? Double
                print(
                    """
                    large session: \(Self.versions) versions, page \(page.count) bytes \
                    (\(page.count / 1024) KiB; archive included), built in \(built), \
                    ready \(Int(ready ?? -1)) ms after navigation start (DOMContentLoaded \(Int(loaded ?? -1)) ms)
                    """)
                try await driver.wait(
                    until: "document.documentElement.getAttribute('data-version') === '\(Self.versions)'")
                try await driver.press(WebDriver.Key.home)
                try await driver.wait(until: "document.documentElement.getAttribute('data-version') === '1'")
                var cursor = try engine.replayCursor(for: session.id)
                let middle = UInt64(Self.versions / 2)
                let point = try cursor.seek(to: middle)
                try await driver.execute("location.hash = 'v=\(middle)';")
                try await driver.wait(until: "document.documentElement.getAttribute('data-version') === '\(middle)'")
                let shown = try await Shown.read(driver)
                #expect(shown.payload == point.payload)
                #expect(shown.context == point.context)
                #expect(Set(shown.active) == Set(point.configuration))
                #expect(shown.event == point.event)
                _ = try Screenshots.write(try await driver.screenshot(), named: "large-session-desktop.png")
                try await expectNoRequests(driver)
            } catch {
                await driver.quit()
                throw error
            }
            await driver.quit()
        }
    }
}
