import Foundation
import Rewind
import RewindLMDB
import RewindTestSupport
import Testing

/// A damaged page of the data file never crashes a command: every page of a demo store is damaged
/// in turn (64 bytes of 0xff at offset 100, a copy per page), and `check` and every command that
/// reads a store run on each copy as subprocesses of the built tool; `check` also runs on a second
/// copy per page damaged at offset 16, where the node offsets start.
struct DamagedPageTests {
    /// The commands run on every damaged copy, besides `check`: every read command, and `fork`
    /// and `import`, which read the store before they write.
    static func commands(archive: String, output: String) -> [[String]] {
        [
            ["sessions"], ["history", "kanji-6"], ["state", "kanji-6", "--at", "3"], ["diff", "kanji-6", "1", "3"],
            ["view", "kanji-6", "--output", output + ".html"], ["export", "kanji-6", "--output", output + ".rwa"],
            ["verify"], ["projections", "list"], ["stats"], ["replay", "kanji-6"], ["graph", "kanji"],
            ["fork", "kanji-6", "--at", "2", "--as", "forked"], ["import", archive, "--as", "imported"],
        ]
    }

    @Test(.hangGuard)  // about a minute alone, 7 under a loaded run: a hang guard, not a limit
    func everyPageDamagedInTurnIsReportedOrHarmlessAndNeverCrashesACommand() async throws {
        let demo = try await DemoStore.make()
        defer { demo.remove() }
        let archive = demo.file("kanji-6.rwa")
        _ = try await demo.tool.text(["export", "kanji-6", "--output", archive])
        let dataFile = demo.tool.store + "/data.mdb"
        let pageSize = 4096
        let pages = try Environment.inspect(directory: demo.tool.store) { try $0.statistics().usedPages }
        // The pages LMDB reads (the meta pages and every page of the trees they name); the others
        // are free pages nothing refers to: damage there is harmless and may pass unnoticed.
        let checking = ContinuousClock.now
        let inUse = try PageCheck.check(directory: demo.tool.store)
        print("page check of the demo store (\(pages) pages): \(ContinuousClock.now - checking)")
        // The copies hold the pages in use only (the file is a sparse 64 MiB map).
        let pristine = try Data(contentsOf: URL(fileURLWithPath: dataFile)).prefix(pages * pageSize)
        /// A copy of the store in `directory` with 64 bytes of 0xff at `offset` of page `page`.
        @Sendable func damagedCopy(page: Int, at offset: Int, in directory: String) throws -> RewindTool {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var bytes = pristine
            let start = bytes.startIndex + page * pageSize + offset
            bytes.replaceSubrange(start..<(start + 64), with: repeatElement(0xff, count: 64))
            try bytes.write(to: URL(fileURLWithPath: directory + "/data.mdb"))
            return try RewindTool(store: directory)
        }
        /// What ran on the copies of one page.
        struct Outputs: Sendable {
            var page: Int
            /// `check`, then every other command, on the copy damaged at offset 100.
            var check: ProcessOutput
            var others: [([String], ProcessOutput)]
            /// `check` on the copy damaged at offset 16: the node offsets, right after the header.
            var offsetsCheck: ProcessOutput
        }

        let started = ContinuousClock.now
        var named = 0
        var namedAtNodeOffsets = 0
        // Two pages at a time, each copy's commands side by side.
        try await withThrowingTaskGroup(of: Outputs.self) { group in
            var next = 0
            func startNext() {
                guard next < pages else { return }
                let page = next
                next += 1
                group.addTask {
                    let directory = demo.file("page-\(page)")
                    defer { try? FileManager.default.removeItem(atPath: directory) }
                    let tool = try damagedCopy(page: page, at: 100, in: directory + "/at-100")
                    let check = try await tool.run(["check"])
                    var others: [([String], ProcessOutput)] = []
                    try await withThrowingTaskGroup(of: ([String], ProcessOutput).self) { commands in
                        for command in Self.commands(archive: archive, output: directory + "/out") {
                            commands.addTask { (command, try await tool.run(command)) }
                        }
                        for try await result in commands { others.append(result) }
                    }
                    let offsets = try damagedCopy(page: page, at: 16, in: directory + "/at-16")
                    return Outputs(
                        page: page, check: check, others: others, offsetsCheck: try await offsets.run(["check"]))
                }
            }
            startNext()
            startNext()
            for try await outputs in group {
                startNext()
                let page = outputs.page
                let check = outputs.check
                for (command, output) in [(["check"], check), (["check"], outputs.offsetsCheck)] + outputs.others {
                    #expect(
                        !output.terminatedBySignal && output.status < 128,
                        "page \(page): rewind \(command.joined(separator: " ")) crashed: \(output)")
                }
                if page < 2 {
                    // A meta page: the data file check names it ("meta page 0 of transaction …", or
                    // "an LMDB meta page … at page 0").
                    for output in [check, outputs.offsetsCheck] {
                        #expect(
                            output.status == 2 && output.stderr.contains("damaged data file")
                                && output.stderr.contains("page \(page)"), "page \(page): \(output)")
                    }
                    continue
                }
                let pageNamed = check.stdout.contains("problem at page \(page) of ")
                if pageNamed {
                    named += 1
                    #expect(check.status == 1, "page \(page): \(check)")
                    // Every other command refuses the store with the same finding.
                    for (command, output) in outputs.others {
                        #expect(
                            output.status == 2 && output.stderr.contains("page \(page) (database '"),
                            "page \(page): rewind \(command.joined(separator: " ")): \(output)")
                    }
                }
                // A free page: LMDB never reads it, so nothing need notice.
                guard inUse.contains(UInt64(page)) else { continue }
                // A branch or leaf page in use whose node offsets (from byte 16 to `mp_lower`) were
                // hit is damaged in its structure: `check` names it. Damage inside the nodes is named
                // when it breaks a node's size, flags or key order, or reported at the record whose
                // checksum it breaks; bytes of a value without a checksum (a projection's state, in
                // a leaf or an overflow page) may change unnoticed. An overflow page after the first
                // of its run has no header of its own.
                let offset = page * pageSize
                let flags = Int(pristine[offset + 10]) | Int(pristine[offset + 11]) << 8
                let lower = Int(pristine[offset + 12]) | Int(pristine[offset + 13]) << 8
                guard flags == 0x01 || flags == 0x02, lower > 16 else { continue }
                let namedAt16 =
                    outputs.offsetsCheck.status == 1
                    && outputs.offsetsCheck.stdout.contains("problem at page \(page) of ")
                if namedAt16 { namedAtNodeOffsets += 1 }
                #expect(
                    namedAt16, "page \(page) (flags \(flags), lower \(lower)), damaged at 16: \(outputs.offsetsCheck)")
                if lower > 100 {
                    #expect(pageNamed, "page \(page) (flags \(flags), lower \(lower)), damaged at 100: \(check)")
                }
            }
        }
        print(
            "damaged \(pages) pages in turn (\(inUse.count) in use, \(named) named by check at offset 100, "
                + "\(namedAtNodeOffsets) at offset 16) in \(ContinuousClock.now - started)")
        // The sweep finds damage: at offset 16 in every branch and leaf page in use. (How many it
        // names at offset 100 depends on how full the demo's pages are, which moves from run to
        // run: 0 to 3 of 31 pages in use.)
        #expect(namedAtNodeOffsets > 0)
    }
}
