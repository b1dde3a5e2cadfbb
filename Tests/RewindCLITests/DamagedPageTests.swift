import Foundation
import Rewind
import RewindLMDB
import RewindTestSupport
import Testing

/// A damaged page of the data file never crashes a command: every page of a demo store is damaged
/// in turn (64 bytes of 0xff at offset 100, a copy per page), and `check` and every command that
/// reads a store run on each copy as subprocesses of the built tool.
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

    @Test(.timeLimit(.minutes(5)))
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
        let damage = 100..<164

        let started = ContinuousClock.now
        var named = 0
        // Two copies at a time, their commands side by side.
        try await withThrowingTaskGroup(of: (page: Int, check: ProcessOutput, others: [([String], ProcessOutput)]).self) { group in
            var next = 0
            func startNext() {
                guard next < pages else { return }
                let page = next
                next += 1
                group.addTask {
                    let directory = demo.file("page-\(page)")
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                    defer { try? FileManager.default.removeItem(atPath: directory) }
                    var bytes = pristine
                    let start = bytes.startIndex + page * pageSize
                    bytes.replaceSubrange((start + damage.lowerBound)..<(start + damage.upperBound),
                                          with: repeatElement(0xff, count: damage.count))
                    try bytes.write(to: URL(fileURLWithPath: directory + "/data.mdb"))
                    let tool = try RewindTool(store: directory)
                    let check = try await tool.run(["check"])
                    var others: [([String], ProcessOutput)] = []
                    try await withThrowingTaskGroup(of: ([String], ProcessOutput).self) { commands in
                        for command in Self.commands(archive: archive, output: directory + "-out") {
                            commands.addTask { (command, try await tool.run(command)) }
                        }
                        for try await result in commands { others.append(result) }
                    }
                    return (page, check, others)
                }
            }
            startNext()
            startNext()
            for try await (page, check, others) in group {
                startNext()
                let offset = page * pageSize
                for (command, output) in [(["check"], check)] + others {
                    #expect(!output.terminatedBySignal && output.status < 128,
                            "page \(page): rewind \(command.joined(separator: " ")) crashed: \(output)")
                }
                if page < 2 {
                    // A meta page: the data file check names it.
                    #expect(check.status == 2 && check.stderr.contains("meta page \(page)"), "page \(page): \(check)")
                    continue
                }
                let pageNamed = check.stdout.contains("problem at page \(page) of ")
                if pageNamed {
                    named += 1
                    #expect(check.status == 1, "page \(page): \(check)")
                    // Every other command refuses the store with the same finding.
                    for (command, output) in others {
                        #expect(output.status == 2 && output.stderr.contains("page \(page) (database '"),
                                "page \(page): rewind \(command.joined(separator: " ")): \(output)")
                    }
                }
                guard inUse.contains(UInt64(page)) else {
                    // A free page: LMDB never reads it, so nothing may notice.
                    continue
                }
                // A branch or leaf page whose damage reaches its header or node offsets (which end
                // at `mp_lower`) is a structural damage that the page check names.
                let flags = Int(pristine[offset + 10]) | Int(pristine[offset + 11]) << 8
                let lower = Int(pristine[offset + 12]) | Int(pristine[offset + 13]) << 8
                let upper = Int(pristine[offset + 14]) | Int(pristine[offset + 15]) << 8
                let isTreePage = flags == 0x01 || flags == 0x02
                if isTreePage && lower > damage.lowerBound {
                    #expect(pageNamed, "page \(page) (flags \(flags), lower \(lower)): \(check)")
                } else if isTreePage && upper >= damage.upperBound {
                    // The damage fell in the page's free space, between the offsets and the nodes.
                    continue
                } else if isTreePage {
                    // Damage inside nodes: the page (a changed key or a node's size or flags), or the
                    // record whose bytes it changed (its checksum) or another inconsistency is reported.
                    #expect(check.status == 1, "page \(page) (flags \(flags)): \(check)")
                }
                // Otherwise an overflow page (the first of a run has flags 0x04, the others no header
                // of their own): the bytes of a big value, which its record's checksum covers when it
                // is a record; a value without one (a projection's state) may change unnoticed.
            }
        }
        print("damaged \(pages) pages in turn (\(inUse.count) in use, \(named) named by check) in \(ContinuousClock.now - started)")
        #expect(named > 0)
    }
}
