import RewindBaseTestSupport
import RewindValues
import Testing

@Suite("Recent by bytes")
struct RecentByBytesTests {
    /// `bytes` as a string, through `memory` (counting the strings made).
    private func string(_ bytes: [UInt8], in memory: inout RecentByBytes<String>, made: inout Int) -> String {
        bytes.withUnsafeBytes { buffer in
            memory.value(for: buffer) {
                made += 1
                return String(decoding: buffer, as: UTF8.self)
            }
        }
    }

    @Test func aValueIsMadeOnceAndHandedOutForExactlyItsBytes() {
        var memory = RecentByBytes<String>()
        var made = 0
        let texts = ["home", "detail", "home", "a-definition-version-of-64-characters-0123456789abcdef0123456789"]
        for text in texts + texts { #expect(string(Array(text.utf8), in: &memory, made: &made) == text) }
        #expect(made == 3)
    }

    /// Bytes its three-word key could mix up: the same ends around another middle (longer than 16
    /// bytes), a zero byte against its absence, 16 against 17 bytes of one letter, canonically
    /// equivalent texts of other bytes. Each must come back as its own bytes, every time.
    @Test func bytesThatShareTheirKeyWordsAreToldApart() {
        let pairs: [([UInt8], [UInt8])] = [
            (Array("abcdefgh-middle-ijklmnop".utf8), Array("abcdefgh-MIDDLE-ijklmnop".utf8)),
            (Array("ab".utf8), Array("ab".utf8) + [0]), ([], [0]),
            (Array(repeating: 0x78, count: 16), Array(repeating: 0x78, count: 17)),
            (Array("caf\u{E9}".utf8), Array("cafe\u{301}".utf8)),
        ]
        var memory = RecentByBytes<String>()
        var made = 0
        for (first, second) in pairs {
            for bytes in [first, second, first, second] {
                #expect(Array(string(bytes, in: &memory, made: &made).utf8) == bytes)
            }
        }
    }

    @Test func aMemoryThatRemembersNothingMakesEveryValue() {
        var memory = RecentByBytes<String>(remembering: false)
        var made = 0
        for _ in 0..<3 { _ = string(Array("home".utf8), in: &memory, made: &made) }
        #expect(made == 3)
    }

    /// Many objects parsed through one memory give the values each parsed alone gives: strings
    /// with escapes, non-ASCII, nested, repeated in other places, more names than slots.
    @Test func objectsParsedThroughOneMemoryAreTheObjectsParsedAlone() throws {
        var random = SeededRandom(seed: 34)
        let words =
            [
                "home", "detail", "caf\u{E9}", "cafe\u{301}", "with \\\"escape\\\"", "\\u00e9t\\u00e9", "",
                "abcdefgh-middle-ijklmnop", "abcdefgh-MIDDLE-ijklmnop",
            ] + (0..<200).map { "state-\($0)" }
        func word() -> String { words[Int.random(in: 0..<words.count, using: &random)] }
        var memory = RecentByBytes<String>()
        for _ in 0..<2_000 {
            let text =
                #"{"event":"\#(word())","target":["\#(word())","\#(word())"],"# + #""push":{"screen":"\#(word())"}}"#
            var remembered: [(String, JSONValue)] = []
            var alone: [(String, JSONValue)] = []
            #expect(
                try JSONValue.parseMembers(ofObject: Array(text.utf8), remembering: &memory) { key, value in
                    remembered.append((String(decoding: key, as: UTF8.self), value))
                })
            #expect(
                try JSONValue.parseMembers(ofObject: Array(text.utf8)) { key, value in
                    alone.append((String(decoding: key, as: UTF8.self), value))
                })
            #expect(remembered.map(\.0) == alone.map(\.0))
            // Compared as their canonical bytes: equal Swift strings may be other bytes.
            #expect(try remembered.map { try $0.1.jsonBytes() } == alone.map { try $0.1.jsonBytes() })
        }
    }
}
