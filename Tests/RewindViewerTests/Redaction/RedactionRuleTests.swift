import Foundation
import Rewind
import RewindTestSupport
import Testing

@testable import RewindViewer

struct RedactionRuleTests {
    @Test func wildcardsMatchEveryKeyAndElement() throws {
        let value: JSONValue = [
            "card": ["number": "4111", "cvc": "123"],
            "items": [["price": 3, "name": "tea"], ["price": 4, "name": "cake"]],
        ]
        var redaction = try Redaction(paths: ["payload.card.*", "payload.items.*.price"])
        let redacted = redaction.apply(.payload, to: value)
        let placeholder = RedactionRule.placeholder
        #expect(
            redacted == [
                "card": ["number": placeholder, "cvc": placeholder],
                "items": [["price": placeholder, "name": "tea"], ["price": placeholder, "name": "cake"]],
            ])
        #expect(
            redaction.redactedPaths == [
                "payload.card.number", "payload.card.cvc", "payload.items.0.price", "payload.items.1.price",
            ])
        // Other roots are untouched.
        #expect(redaction.apply(.context, to: value) == value)
    }

    @Test func dataRulesCoverStateDataAndNavigationEntries() throws {
        var redaction = try Redaction(paths: ["data.*.email"])
        let data: [String: JSONValue] = ["profile": ["email": "a@b.c", "name": "Ann"], "home": .null]
        #expect(
            redaction.apply(toStateData: data) == [
                "profile": ["email": RedactionRule.placeholder, "name": "Ann"], "home": .null,
            ])
        let entries = redaction.apply(toNavigation: [NavigationEntry(screen: "profile", data: ["email": "a@b.c"])])
        #expect(entries == [NavigationEntry(screen: "profile", data: ["email": RedactionRule.placeholder])])
    }

    @Test(arguments: [
        ("card.number", "it must start with payload, data or context"),
        ("payload..number", "segment 2 is empty"),
        ("", "it must start with payload, data or context"),
        ("data.", "segment 2 is empty"),
    ])
    func badPathsSayWhatIsWrong(path: String, reason: String) {
        #expect(throws: RedactionRuleError(path: path, reason: reason)) { try RedactionRule(path) }
    }

    @Test func aRedactedArchiveValidatesImportsAndHoldsNoRedactedValue() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let session = try await engine.openSession(id: "card-user", machine: TickerMachine.name)
        for index in 0..<5 {
            _ = try await session.send(
                TickerMachine.tick,
                payload: ["card": ["number": .string("4111-0000-\(index)")], "n": .number(JSONNumber(index))])
        }
        let archive = try engine.exportSession(SessionID("card-user"))
        #expect(String(decoding: archive, as: UTF8.self).contains("4111-0000-3"))
        var redaction = try Redaction(paths: ["payload.card.*"])
        let redacted = try redaction.apply(toArchive: archive)
        // The numbers themselves ("4111-0000-…"): "4111" alone also turns up in timestamps (a run
        // failed on `…266264111`).
        #expect(!String(decoding: redacted, as: UTF8.self).contains("4111-0000"))
        try SessionArchive.validate(redacted)
        let other = try EngineFixture()
        defer { other.remove() }
        let importer = try other.open(registering: [try TickerMachine.machine()])
        defer { importer.close() }
        let info = try await importer.importSession(redacted)
        var cursor = try importer.replayCursor(for: info.session)
        var versions = 0
        while let point = try cursor.stepForward() {
            versions += 1
            if point.event == TickerMachine.tick {
                #expect(point.payload["card"]?["number"] == RedactionRule.placeholder)
                #expect(point.payload["n"] != nil && point.payload["n"] != RedactionRule.placeholder)
            }
        }
        #expect(versions == 6)
        // A damaged archive is refused with its line, not rewritten.
        var damaged = Array(archive)
        damaged[damaged.count / 2] ^= 0x20
        #expect(throws: SessionArchiveError.self) { try SessionArchive.rewritten(Data(damaged)) { _ in } }
    }
}
