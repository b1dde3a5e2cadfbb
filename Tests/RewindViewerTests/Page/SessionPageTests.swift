import Foundation
import Rewind
import RewindTestSupport
import Testing

@testable import RewindViewer

/// The page file itself: self-contained, no URL, the archive embedded exactly, redacted values
/// absent from every byte.
struct SessionPageTests {
    /// A kanji-like session with personal data in payloads, state data and context.
    static func engineWithSession() async throws -> (EngineFixture, Engine) {
        let fixture = try EngineFixture()
        let engine = try fixture.open(registering: [try KanjiNavigation.machine(), try TickerMachine.machine()])
        _ = try await KanjiNavigation.walk("kanji-1", in: engine)
        let ticker = try await engine.openSession(
            id: "ticker-1", machine: TickerMachine.name, context: ["token": "secret-token-XYZ"])
        for index in 0..<12 {
            _ = try await ticker.send(
                TickerMachine.tick,
                payload: ["email": .string("person\(index)@example.org"), "n": .number(JSONNumber(index))])
        }
        return (fixture, engine)
    }

    /// The embedded archive as the download button restores it.
    static func embeddedArchive(_ page: Data) -> Data? {
        let bytes = Array(page)
        let start = Array(#"id="rw-archive""#.utf8)
        guard let at = bytes.firstRange(of: start),
            let open = bytes[at.upperBound...].firstIndex(of: UInt8(ascii: ">")),
            let end = bytes[open...].firstRange(of: Array("</script>".utf8))
        else { return nil }
        return Data(bytes[(open + 1)..<end.lowerBound].map { $0 == 0x01 ? UInt8(ascii: "<") : $0 })
    }

    @Test func thePageIsOneFileWithNoURLAndTheExactArchive() async throws {
        let (fixture, engine) = try await Self.engineWithSession()
        defer {
            fixture.remove()
            engine.close()
        }
        let page = try SessionPage(engine: engine, session: SessionID("kanji-1")).html()
        let text = String(decoding: page, as: UTF8.self)
        for forbidden in ["http://", "https://", "src=", "<link", "@import", "url(", "//cdn", "ftp:"] {
            #expect(!text.contains(forbidden), "the page holds \(forbidden)")
        }
        #expect(text.hasPrefix("<!doctype html>"))
        #expect(Self.embeddedArchive(page) == (try engine.exportSession(SessionID("kanji-1"))))
        // The diagram follows the contract: one group per state, one per transition.
        for state in ["all", "detail", "list"] { #expect(text.contains(#"data-state="\#(state)""#)) }
    }

    /// The script is `Resources/viewer.js`, byte for byte, inline in the page (no file beside it).
    @Test func thePageInlinesViewerJSVerbatim() async throws {
        let (fixture, engine) = try await Self.engineWithSession()
        defer {
            fixture.remove()
            engine.close()
        }
        var source = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { source.deleteLastPathComponent() }
        let script = try String(
            contentsOf: source.appendingPathComponent("Sources/RewindViewer/Resources/viewer.js"), encoding: .utf8)
        #expect(!script.isEmpty)
        #expect(!script.lowercased().contains("</script"), "the script would end its own element")
        let page = String(
            decoding: try SessionPage(engine: engine, session: SessionID("kanji-1")).html(), as: UTF8.self)
        #expect(page.contains("<script>\(script)</script>"))
    }

    @Test func redactedValuesAppearNowhereInTheFile() async throws {
        let (fixture, engine) = try await Self.engineWithSession()
        defer {
            fixture.remove()
            engine.close()
        }
        let plain = String(
            decoding: try SessionPage(engine: engine, session: SessionID("ticker-1")).html(), as: UTF8.self)
        #expect(plain.contains("person3@example.org") && plain.contains("secret-token-XYZ"))
        let rules = try Redaction(paths: ["payload.email", "context.token"])
        let page = try SessionPage(engine: engine, session: SessionID("ticker-1"), redacting: rules).html()
        let text = String(decoding: page, as: UTF8.self)
        for index in 0..<12 { #expect(!text.contains("person\(index)@example.org")) }
        #expect(!text.contains("example.org"))
        #expect(!text.contains("secret-token-XYZ"))
        #expect(text.contains("payload.email") && text.contains("context.token"), "the page lists what was redacted")
        let archive = try #require(Self.embeddedArchive(page))
        try SessionArchive.validate(archive)
    }

    /// A trimmed session's page offers its download as an untrimmed one does: the archive is
    /// format version 3, with its base, and redaction reaches the base state (here the context,
    /// which only the base holds).
    @Test func aTrimmedSessionsPageEmbedsItsArchiveWithItsBaseRedactedToo() async throws {
        let (fixture, engine) = try await Self.engineWithSession()
        defer {
            fixture.remove()
            engine.close()
        }
        try engine.trimHistory(of: "ticker-1", before: 6)
        let head = try #require(try engine.store.sessionInfo(for: "ticker-1")).headVersion
        let export = try engine.exportSession(SessionID("ticker-1"))
        #expect(
            String(decoding: export, as: UTF8.self).contains("secret-token-XYZ"), "the base state holds the context")
        let plain = try SessionPage(engine: engine, session: SessionID("ticker-1")).html()
        #expect(Self.embeddedArchive(plain) == export)
        #expect(String(decoding: plain, as: UTF8.self).contains(#""archive":true"#))

        let rules = try Redaction(paths: ["payload.email", "context.token"])
        let page = try SessionPage(engine: engine, session: SessionID("ticker-1"), redacting: rules).html()
        let text = String(decoding: page, as: UTF8.self)
        #expect(!text.contains("secret-token-XYZ"))
        #expect(!text.contains("example.org"))
        let archive = try #require(Self.embeddedArchive(page))
        let header = String(decoding: archive.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        #expect(header.contains(#""formatVersion":\#(SessionArchive.trimmedFormatVersion)"#), "\(header)")
        // It imports as a session that begins at the same base, its context there redacted.
        let other = try EngineFixture()
        defer { other.remove() }
        let copy = try other.open(registering: [])
        defer { copy.close() }
        let imported = try await copy.importSession(archive, as: "copy")
        #expect(imported.baseVersion == 6)
        #expect(imported.headVersion == head)
        let cursor = try copy.replayCursor(for: "copy")
        #expect(cursor.point.version == 6)
        #expect(cursor.point.context["token"] == RedactionRule.placeholder)
    }

    @Test func rulesThatMatchNothingFailThePageWhenEveryRuleMustMatch() async throws {
        let (fixture, engine) = try await Self.engineWithSession()
        defer {
            fixture.remove()
            engine.close()
        }
        let rules = try Redaction(paths: ["payload.email", "payload.emial", "context.nothing"])
        var page = SessionPage(engine: engine, session: SessionID("ticker-1"), redacting: rules)
        #expect(throws: Never.self) { _ = try page.html() }  // the library's default: allowed
        page.requiresEveryRedactionToMatch = true
        #expect(throws: ViewerError.unmatchedRedactions(paths: ["payload.emial", "context.nothing"])) {
            _ = try page.html()
        }
        page.redaction = try Redaction(paths: ["payload.email", "context.token"])
        #expect(throws: Never.self) { _ = try page.html() }
        var machinePage = MachinePage(engine: engine, machine: TickerMachine.name, redacting: rules)
        machinePage.requiresEveryRedactionToMatch = true
        #expect(throws: ViewerError.unmatchedRedactions(paths: ["payload.emial", "context.nothing"])) {
            _ = try machinePage.html()
        }
    }

    @Test func aSessionStringCannotEndTheScript() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        let session = try await engine.openSession(id: "script-user", machine: TickerMachine.name)
        _ = try await session.send(TickerMachine.tick, payload: ["html": "</script><script>alert(1)</script><!--"])
        let text = String(
            decoding: try SessionPage(engine: engine, session: SessionID("script-user")).html(), as: UTF8.self)
        #expect(!text.contains("alert(1)</script>"))
        #expect(text.components(separatedBy: "</script>").count == 4, "three scripts: data, code, archive")
        #expect(Self.embeddedArchive(Data(text.utf8)) == (try engine.exportSession(SessionID("script-user"))))
    }

    @Test func anUnknownSessionIsATypedError() throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try TickerMachine.machine()])
        defer { engine.close() }
        #expect(throws: EngineError.unknownSession(SessionID("nobody"))) {
            try SessionPage(engine: engine, session: SessionID("nobody")).html()
        }
        #expect(throws: ViewerError.noSessions(machine: "ticker")) {
            try MachinePage(engine: engine, machine: "ticker").html()
        }
    }
}
