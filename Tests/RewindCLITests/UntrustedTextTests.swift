import Foundation
import Rewind
import RewindTestSupport
import Testing

@testable import RewindCLI

/// Ids and values from outside on text output: new ids with control characters are refused
/// (naming the character and where it is), ids of old stores that have them are read and shown
/// escaped, and long ids are shortened in error messages.
struct UntrustedTextTests {
    @Test(arguments: [
        ("evil\u{1B}[2J", "U+001B (ESC) at position 5"),
        ("two\nlines", "U+000A (line feed) at position 4"),
        ("c1\u{9B}31m", "U+009B (CSI) at position 3"),
        ("del\u{7F}", "U+007F (DEL) at position 4"),
    ])
    func newIDsWithControlCharactersAreRefusedByForkAndImport(id: String, named: String) async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let before = try await demo.tool.sessionRows(["sessions"]).count
        expectOneLineError(
            try await demo.tool.run(["fork", "kanji-3", "--at", "1", "--as", id]),
            containing: ["invalid session id", named])
        let archive = demo.file("kanji-3.rewind")
        _ = try await demo.tool.text(["export", "kanji-3", "-o", archive])
        expectOneLineError(
            try await demo.tool.run(["import", archive, "--as", id]), containing: ["invalid session id", named])
        #expect(try await demo.tool.sessionRows(["sessions"]).count == before)
    }

    @Test func idsOfOldStoresWithControlCharactersAreReadAndShownEscaped() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        _ = try await demo.tool.text(["fork", "kanji-3", "--at", "2", "--as", "evilQ[2JNx"])
        // As a store written before the rule: the id holds an ESC and a newline.
        let id = "evil\u{1B}[2J\nx"
        try LegacyStore.rewrite(store: demo.tool.store, replacing: "evilQ[2JNx", with: id)
        let rows = try await demo.tool.sessionRows(["sessions"])
        #expect(rows.contains { $0.session == id }, "JSON carries the id as it is")

        let listing = try await demo.tool.text(["sessions"])
        #expect(!listing.contains("\u{1B}"), "\(listing)")
        #expect(listing.split(separator: "\n").count == rows.count + 1, "one line a session:\n\(listing)")
        #expect(listing.contains(#"evil\e[2J\nx "#), "\(listing)")
        for command in [
            ["history", id], ["state", id], ["replay", id], ["verify"], ["verify", id], ["diff", id, "1", "2"],
        ] {
            let output = try await demo.tool.run(command)
            #expect(output.status == 0, "\(command): \(output)")
            #expect(
                !output.stdout.contains("\u{1B}") && !output.stdout.contains("evil\u{1B}"),
                "\(command): \(output.stdout)")
        }
        let history = try await demo.tool.text(["history", id])
        #expect(history.hasPrefix(#"session evil\e[2J\nx · machine kanji"#), "\(history)")
        expectOneLineError(
            try await demo.tool.run(["history", "evil\u{1B}[2Jx"]), containing: [#"unknown session 'evil\e[2Jx'"#])
        // Whatever an error quotes, its line is escaped.
        let badVersion = try await demo.tool.run(["state", id, "--at", "1\u{1B}[2J"])
        expectOneLineError(badVersion, containing: [#"bad version '1\e[2J'"#])
        #expect(!badVersion.stderr.contains("\u{1B}"), "\(badVersion)")
        let check = try await demo.tool.run(["check"])
        #expect(check.status == 0, "\(check)")
    }

    @Test func aLongIDIsShortenedInErrorMessages() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let long = String(repeating: "x", count: 100_000)
        for command in [["history", long], ["fork", "kanji-3", "--at", "1", "--as", long], ["view", long]] {
            let output = try await demo.tool.run(command)
            expectOneLineError(output, containing: [String(repeating: "x", count: 60) + "... (100000 characters)"])
            #expect(output.stderr.count < 400, "\(command.first ?? ""): \(output.stderr.count) characters")
        }
    }

    @Test func textPrintersEscapeControlCharactersJSONLeavesAsTheyAre() {
        // JSON escapes C0 only: DEL and C1 (U+009B is a CSI to some terminals) are escaped for text.
        let value = JSONValue.object(["k\u{9B}": .string("a\u{7F}b\u{1B}")])
        #expect(value.compactJSON == #"{"k\u{9B}":"a\u{7F}b\u001b"}"#)
        #expect(Terminal.table(["ID", "STATE"], [["a\nb", "x"]]) == "ID    STATE\n" + #"a\nb  x"#)
        #expect(NavigationEntry(screen: "s\u{1B}", data: .null).text == #"s\e"#)
    }
}
