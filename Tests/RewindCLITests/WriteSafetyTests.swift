import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Write commands refuse what reads refuse and write nothing when they fail: an emptied data file
/// is not made a new store, a refused fork or import leaves the store's data file byte-identical,
/// and a forged archive is refused by `import` and reported by `check`.
struct WriteSafetyTests {
    /// A copy of the demo store (`name` in the demo's directory) and the tool on it.
    private func copy(of demo: DemoStore, as name: String = "copy") throws -> RewindTool {
        let copy = demo.file(name)
        try FileManager.default.copyItem(atPath: demo.tool.store, toPath: copy)
        return try RewindTool(store: copy)
    }

    /// Every file of the store directory, by name, with its bytes.
    private func files(of store: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: store) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: store + "/" + name))
        }
        return files
    }

    @Test func writeCommandsRefuseAnEmptyDataFileAsReadsDo() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let archive = demo.file("kanji-3.rwa")
        _ = try await demo.tool.text(["export", "kanji-3", "--output", archive])
        let tool = try copy(of: demo)
        let dataFile = tool.store + "/data.mdb"
        try Data().write(to: URL(fileURLWithPath: dataFile))
        for command in [
            ["demo", "--sessions", "1"], ["import", archive, "--as", "imported"],
            ["import", archive, "--as", "imported", "--create"], ["projections", "rebuild", "rewind.navigation"],
            ["fork", "kanji-3", "--at", "1"], ["fork", "nosuch", "--at", "1"],
        ] {
            expectOneLineError(try await tool.run(command), containing: ["damaged data file", "empty file"])
            let size = (try FileManager.default.attributesOfItem(atPath: dataFile))[.size] as? NSNumber
            #expect(size?.intValue == 0, "\(command) wrote the data file")
        }
    }

    @Test func refusedWriteCommandsLeaveTheStoreFilesByteIdentical() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let archive = demo.file("kanji-3.rwa")
        _ = try await demo.tool.text(["export", "kanji-3", "--output", archive])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        let truncated = demo.file("truncated.rwa")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        let garbage = demo.file("garbage.rwa")
        try Data("not an archive\n".utf8).write(to: URL(fileURLWithPath: garbage))
        let tool = try copy(of: demo)
        let before = try files(of: tool.store)
        for (command, fragment) in [
            (["fork", "nosuch", "--at", "1"], "unknown session 'nosuch'"),
            (["fork", "kanji-3", "--at", "99"], "bad version '99'"),
            (["fork", "kanji-3", "--at", "1", "--as", "kanji-6"], "session 'kanji-6' already exists"),
            (["import", truncated, "--as", "imported"], "truncated"),
            (["import", garbage, "--as", "imported"], "session archive line 1"),
            (["import", demo.file("missing.rwa"), "--as", "imported"], "cannot read"),
            (["import", archive], "session 'kanji-3' already exists"),
            (["projections", "rebuild", "nosuch"], "unknown projection 'nosuch'"),
        ] {
            expectOneLineError(try await tool.run(command), containing: [fragment])
            // The data file byte for byte (both meta pages included), and no file added or removed.
            // (`lock.mdb` is LMDB's reader table: every read, `rewind sessions` too, leaves its
            // process's ids in a reader slot.)
            let after = try files(of: tool.store)
            #expect(after["data.mdb"] == before["data.mdb"], "\(command) changed data.mdb")
            #expect(Set(after.keys) == Set(before.keys), "\(command) changed the store's files")
        }
    }

    @Test func aForgedRecordIsReportedByCheckAndItsArchiveRefusedByImport() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let forgedStore = try copy(of: demo, as: "forged")
        // A record written past the engine (every checksum valid) that enters a state the kanji
        // definition does not have.
        let store = try TransitionStore(directory: forgedStore.store)
        let last = try #require(try store.read { try $0.records(of: SessionID("kanji-3"), from: 1, limit: 100).last })
        try store.append(
            [
                TransitionDraft(
                    machine: last.machine, definition: last.definition, event: "enter", source: last.target,
                    target: ["nowhere"])
            ], to: SessionID("kanji-3"), expectedVersion: .exact(last.version))
        store.close()
        let forgedVersion = last.version + 1
        let check = try await forgedStore.run(["check"])
        #expect(check.status == 1, "\(check)")
        #expect(check.stdout.contains("session 'kanji-3' version \(forgedVersion) enters state 'nowhere'"), "\(check)")

        // Its export is an archive whose every checksum is valid: import refuses it, writing nothing.
        let archive = demo.file("forged.rwa")
        _ = try await forgedStore.text(["export", "kanji-3", "--output", archive])
        let tool = try copy(of: demo)
        let before = try files(of: tool.store)["data.mdb"]
        expectOneLineError(
            try await tool.run(["import", archive, "--as", "forged"]),
            containing: [
                "line \(forgedVersion + 1) (version \(forgedVersion)) enters state 'nowhere'", "nothing was imported",
            ])
        #expect(try files(of: tool.store)["data.mdb"] == before)
    }
}
