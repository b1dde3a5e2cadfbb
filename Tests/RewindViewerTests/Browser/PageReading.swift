import Foundation
import Rewind
import Testing

/// What a viewer page shows at its cursor, read from the DOM.
struct Shown: Decodable, Sendable {
    struct Card: Decodable, Sendable {
        var screen: String
        var data: JSONValue?
    }
    var version: UInt64
    var active: [String]
    var taken: [String]
    var cards: [Card]
    var data: JSONValue
    var context: JSONValue
    var payload: JSONValue
    var event: String

    static let script = """
        var value = function (s) { var n = document.querySelector(s); return n && n.hasAttribute('data-value') ? JSON.parse(n.getAttribute('data-value')) : 'missing'; };
        return JSON.stringify({
          version: +document.documentElement.getAttribute('data-version'),
          active: Array.from(document.querySelectorAll('#rw-diagram [data-state].rw-active')).map(function (n) { return n.getAttribute('data-state'); }),
          taken: Array.from(document.querySelectorAll('#rw-diagram [data-transition].rw-taken')).map(function (n) { return n.getAttribute('data-transition'); }),
          cards: Array.from(document.querySelectorAll('#rw-stack .rw-card')).map(function (c) { var d = c.querySelector('[data-value]'); return { screen: c.getAttribute('data-screen'), data: d ? JSON.parse(d.getAttribute('data-value')) : null }; }),
          data: value('#rw-state-data'), context: value('#rw-context'), payload: value('#rw-payload'),
          event: document.querySelector('#rw-event .rw-event-name').textContent
        });
        """

    static func read(_ driver: WebDriver) async throws -> Shown {
        guard let text = try await driver.execute(script) as? String else {
            throw WebDriver.Failure(description: "the page returned no state")
        }
        return try JSONDecoder().decode(Shown.self, from: Data(text.utf8))
    }
}

/// Waits for the page to stand at `version`, then expects it to show what `rewind state` says.
func expectPage(
    _ driver: WebDriver, at version: UInt64, equals state: DemoPages.State,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    try await driver.wait(until: "document.documentElement.getAttribute('data-version') === '\(version)'")
    let shown = try await Shown.read(driver)
    #expect(shown.version == state.version, sourceLocation: sourceLocation)
    #expect(Set(shown.active) == Set(state.configuration), "highlighted states", sourceLocation: sourceLocation)
    #expect(
        shown.cards.map(\.screen) == state.navigationStack.reversed().map(\.screen), "stack cards, top first",
        sourceLocation: sourceLocation)
    #expect(
        shown.cards.map { $0.data ?? .null } == state.navigationStack.reversed().map { $0.data ?? .null },
        "cards' data", sourceLocation: sourceLocation)
    #expect(shown.data == .object(state.data), "state data", sourceLocation: sourceLocation)
    #expect(shown.context == state.context, "context", sourceLocation: sourceLocation)
    #expect(shown.payload == state.payload, "payload", sourceLocation: sourceLocation)
    #expect(shown.event == (state.event ?? "(before the first record)"), sourceLocation: sourceLocation)
}

/// Expects the page to have requested nothing: no resource entries at all.
func expectNoRequests(_ driver: WebDriver, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let count = try await driver.execute("return performance.getEntriesByType('resource').length;") as? Int
    #expect(count == 0, "the page made \(count ?? -1) requests", sourceLocation: sourceLocation)
}
