import Foundation
import RewindTestSupport
import Testing

/// `--store PATH` naming no store: every command fails with one line and leaves the path as it
/// was.
struct StoreErrorTests {
    /// Every command that opens the store, with arguments that would be fine on the demo store.
    static let commands: [[String]] = [
        ["sessions"], ["history", "kanji-3"], ["state", "kanji-3"], ["diff", "kanji-3", "1", "2"],
        ["replay", "kanji-3"], ["verify"], ["export", "kanji-3", "-o", "/dev/null"], ["import", "/dev/null"],
        ["fork", "kanji-3", "--at", "1"], ["graph", "kanji", "--session", "kanji-3"], ["projections"],
        ["projections", "rebuild", "rewind.navigation"], ["stats"],
    ]

    @Test func aMissingDirectoryIsNoStoreAndIsNotCreated() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let missing = directory.url.appendingPathComponent("missing").path
        let tool = try RewindTool(store: missing)
        for command in Self.commands {
            for json in [[], ["--json"]] {
                let output = try await tool.run(command + json)
                expectOneLineError(output, containing: ["no store at '\(missing)'"])
                #expect(!FileManager.default.fileExists(atPath: missing), "\(command) created the store")
            }
        }
    }

    @Test func anEmptyDirectoryIsNoStoreAndStaysEmpty() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let tool = try RewindTool(store: directory.path)
        for command in Self.commands {
            expectOneLineError(try await tool.run(command), containing: ["no store at '\(directory.path)'"])
            let contents = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(contents.isEmpty, "\(command) left \(contents)")
        }
    }

    @Test func aDirectoryOfOtherFilesIsNotAStoreAndIsLeftAsItWas() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let notes = directory.url.appendingPathComponent("notes.txt")
        try Data("my notes\n".utf8).write(to: notes)
        let tool = try RewindTool(store: directory.path)
        for command in Self.commands {
            let output = try await tool.run(command)
            expectOneLineError(output, containing: ["'\(directory.path)'", "not a Rewind store"])
            let contents = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(contents == ["notes.txt"], "\(command) left \(contents)")
        }
        #expect(try Data(contentsOf: notes) == Data("my notes\n".utf8))
        // The demo refuses it too, rather than writing a store among the files.
        expectOneLineError(try await tool.run(["demo", "--sessions", "3"]), containing: ["not a Rewind store"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["notes.txt"])
    }

    @Test func aFileInsteadOfADirectoryIsSaidToBeAFile() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let tool = try RewindTool(store: file.path)
        expectOneLineError(
            try await tool.run(["sessions"]), containing: ["'\(file.path)' is a file, not a store directory"])
        expectOneLineError(
            try await tool.run(["demo", "--sessions", "3"]),
            containing: ["is not a Rewind store: it is not a directory"])
        #expect(try Data(contentsOf: file) == Data("x".utf8))
    }
}
