import Foundation
import Rewind
import RewindLMDB
import RewindTestSupport
import Testing

/// Stores on disk: a truncated or empty data file is a one-line error (never a crash, never a
/// new store), read commands read read-only stores, `demo --fresh` removes only a store, and an
/// import refuses an over-long line as soon as it passes the limit.
struct StoreSafetyTests {
    /// A copy of the demo store (`copy` in the demo's directory) and the tool on it.
    private func copy(of demo: DemoStore) throws -> RewindTool {
        let copy = demo.file("copy")
        try FileManager.default.copyItem(atPath: demo.tool.store, toPath: copy)
        return try RewindTool(store: copy)
    }

    private func size(_ path: String) throws -> Int {
        ((try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test(arguments: [8192, 200_000])
    func aTruncatedDataFileIsAOneLineErrorForEveryCommand(size truncated: Int) async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        // Enough records that the data file is longer than the truncation.
        _ = try await demo.tool.text(["demo", "--sessions", "300"])
        let tool = try copy(of: demo)
        let dataFile = tool.store + "/data.mdb"
        #expect(try size(dataFile) > 200_000)
        let handle = try #require(FileHandle(forWritingAtPath: dataFile))
        try handle.truncate(atOffset: UInt64(truncated))
        try handle.close()
        for command in [["stats"], ["verify"], ["history", "kanji-3"], ["demo", "--sessions", "3"], ["check"]] {
            let output = try await tool.run(command)
            expectOneLineError(
                output,
                containing: [
                    "damaged data file '", "/copy/data.mdb'", "expected at least ", "found \(truncated) bytes",
                ])
            #expect(try size(dataFile) == truncated, "\(command) changed the file")
        }
    }

    @Test func anEmptyDataFileIsNotReinitialisedByAReadCommand() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let tool = try copy(of: demo)
        let dataFile = tool.store + "/data.mdb"
        try Data().write(to: URL(fileURLWithPath: dataFile))
        for command in [["stats"], ["sessions"], ["history", "kanji-3"], ["check"]] {
            expectOneLineError(try await tool.run(command), containing: ["damaged data file", "empty file"])
            #expect(try size(dataFile) == 0, "\(command) wrote the data file")
        }
    }

    @Test func readCommandsReadAStoreWhoseFilesTheUserCannotWrite() async throws {
        guard getuid() == 0, let setpriv = BuiltProduct.onPath(named: "setpriv") else {
            print("read-only files test skipped: needs root and setpriv to run the tool as another user")
            return
        }
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let before = try Data(contentsOf: URL(fileURLWithPath: demo.tool.store + "/data.mdb"))
        // The files stay root's (0644): user nobody can read them but not write them or the lock file.
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", demo.tool.executable.path]
        for command in [["stats"], ["sessions"], ["history", "kanji-3"], ["verify"], ["check"]] {
            let output = try await runProcess(
                setpriv, arguments: asNobody + command + ["--store", demo.tool.store])
            #expect(output.status == 0, "\(command): \(output)")
        }
        let demoRun = try await runProcess(
            setpriv, arguments: asNobody + ["demo", "--sessions", "1", "--store", demo.tool.store])
        #expect(demoRun.status == 2, "a write command needs write access: \(demoRun)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: demo.tool.store + "/data.mdb")) == before)
    }

    @Test func freshRefusesAnythingButAStoreAndLeavesItUntouched() async throws {
        let directory = try TemporaryDirectory(prefix: "rewind-cli")
        defer { directory.remove() }
        // A directory of the user's files.
        let documents = directory.url.appendingPathComponent("documents")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: false)
        try Data("keep me\n".utf8).write(to: documents.appendingPathComponent("notes.txt"))
        let output = try await RewindTool(store: documents.path).run(["demo", "--fresh", "--sessions", "1"])
        expectOneLineError(
            output, containing: ["refusing to delete '\(documents.path)'", "'notes.txt'", "nothing was deleted"])
        #expect(try Data(contentsOf: documents.appendingPathComponent("notes.txt")) == Data("keep me\n".utf8))
        // A plain file.
        let file = directory.url.appendingPathComponent("file.txt")
        try Data("x".utf8).write(to: file)
        expectOneLineError(
            try await RewindTool(store: file.path).run(["demo", "--fresh", "--sessions", "1"]),
            containing: ["refusing to delete", "is a file"])
        #expect(try Data(contentsOf: file) == Data("x".utf8))
        // The current directory, holding the user's files.
        let tool = try RewindTool(store: ".")
        let dot = try await runProcess(
            tool.executable, arguments: ["demo", "--fresh", "--sessions", "1", "--store", "."],
            currentDirectory: documents)
        expectOneLineError(dot, containing: ["refusing to delete '.'"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: documents.path) == ["notes.txt"])
        // An LMDB environment that is not a Rewind store.
        let other = directory.url.appendingPathComponent("other-lmdb")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: false)
        do {
            let env = try Environment(directory: other.path)
            let main = try env.database(named: nil)
            try env.write { txn in try txn.put([1], forKey: [1], in: main) }
            env.close()
        }
        expectOneLineError(
            try await RewindTool(store: other.path).run(["demo", "--fresh", "--sessions", "1"]),
            containing: ["refusing to delete", "not a Rewind store"])
        #expect(FileManager.default.fileExists(atPath: other.path + "/data.mdb"))
    }

    @Test func freshStartsAStoreOver() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let again = try await demo.tool.json(DemoStore.Summary.self, ["demo", "--fresh", "--sessions", "3"])
        #expect(again.created)
        #expect(again.totalSessions == 3)
    }

    @Test func anImportOfOneEndlessLineIsRefusedAtTheLimit() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        // /dev/zero is one line that never ends: read whole, it would never be refused.
        for create in [[], ["--create"]] {
            let output = try await demo.tool.run(["import", "/dev/zero"] + create)
            expectOneLineError(output, containing: ["session archive line 1 is longer than 67108864 bytes"])
        }
    }
}
